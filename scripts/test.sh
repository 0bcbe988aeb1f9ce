#!/usr/bin/env bash
# Installs what the tests need (a venv, Mosquitto, tmux) and runs the whole suite.
set -euo pipefail
. "$(dirname "$0")/_venv.sh" test
command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ] || apt_install mosquitto
command -v tmux >/dev/null || apt_install tmux
# [web console] the browser tests drive Debian's chromium through Playwright (never `playwright install`)
command -v chromium >/dev/null || apt_install chromium
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/python -m pytest "$@"
