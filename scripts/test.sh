#!/usr/bin/env bash
# Installs what the tests need (a venv, Mosquitto, tmux, Chromium, systemd-analyze, shellcheck, ...) and runs
# ruff, mypy, the Raspberry Pi wheel check (needs the package index) and the whole suite.
# Extra arguments go to pytest.
set -euo pipefail
# The Debian packages the tests need: _venv.sh installs every missing one in one apt-get run (or, with
# neither root nor sudo, names them all in one line). The browser tests drive Debian's chromium
# through Playwright (never `playwright install`), whose driver needs libatomic1 (Debian 13's
# chromium pulls it in, Debian 12's does not); `baccarat casing --out FILE.png` draws its text in
# DejaVu Sans (fonts-dejavu-core); systemd for systemd-analyze, util-linux for setpriv, alsa-utils
# for aplay, git for tests/test_update.py (it installs from checkouts and `git archive`s; the
# updater itself does without git), mbpoll for tests/test_clue_control_mbpoll.py (a Modbus client apart from pymodbus),
# gettext for msgfmt, which checks the language catalogs as translators' tools do (tests/test_i18n_catalogs.py).
# shellcheck disable=SC2034  # read by _venv.sh
apt_packages=(mosquitto tmux chromium libatomic1 fonts-dejavu-core systemd shellcheck util-linux alsa-utils git mbpoll gettext)
# shellcheck source=scripts/_venv.sh
. "$(dirname "$0")/_venv.sh" test
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy  # strict, on baccarat_core and firmware: pyproject's [tool.mypy]
.venv/bin/python scripts/check_pi_wheels.py
.venv/bin/python -m pytest "$@"
