#!/usr/bin/env bash
# Installs what the tests need (a venv, Mosquitto, tmux, Chromium, systemd-analyze, shellcheck) and runs
# ruff, mypy, the Raspberry Pi wheel check (needs the package index) and the whole suite.
# Extra arguments go to pytest.
set -euo pipefail
# shellcheck source=scripts/_venv.sh
. "$(dirname "$0")/_venv.sh" test
command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ] || apt_install mosquitto
command -v tmux >/dev/null || apt_install tmux
# The browser tests drive Debian's chromium through Playwright (never `playwright install`).
command -v chromium >/dev/null || apt_install chromium
# `baccarat casing --out FILE.png` draws its text in DejaVu Sans.
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || apt_install fonts-dejavu-core
command -v systemd-analyze >/dev/null || apt_install systemd
command -v shellcheck >/dev/null || apt_install shellcheck
command -v setpriv >/dev/null || apt_install util-linux
command -v aplay >/dev/null || apt_install alsa-utils
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy  # strict, on baccarat_core and firmware: pyproject's [tool.mypy]
.venv/bin/python scripts/check_pi_wheels.py
.venv/bin/python -m pytest "$@"
