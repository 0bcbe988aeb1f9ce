"""The Baccarat prop: the daemon, its hardware and its command line."""
