"""The daemon's subcommands: ``run`` and ``check-config``."""

from __future__ import annotations

import argparse


def add_daemon_commands(sub: argparse._SubParsersAction) -> None:
    """Register the daemon's subcommands (filled in with the daemon)."""
