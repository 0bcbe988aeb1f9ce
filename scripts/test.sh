#!/usr/bin/env bash
# Installs what the tests need (a venv, Mosquitto, tmux, Chromium, systemd-analyze, shellcheck, ...) and runs
# ruff, mypy, the Raspberry Pi wheel check (needs the package index) and the whole suite, on every core
# (pytest-xdist; a test file stays on one worker); then the fast tier on each other Python the prop
# supports that the machine has. docs/develop/tests.md describes the tiers.
#   bash scripts/test.sh           everything, as CI runs it (.ci/run)
#   bash scripts/test.sh --fast    the fast tier only: no install or browser tests, fewer hypothesis examples,
#                                  no ruff, mypy or wheel check, no other Python
# Other arguments go to pytest (after --fast): a file, -k EXPR, -n 0 for one process, ...
# BACCARAT_PYTHON=python3.13 BACCARAT_VENV=.venv313 bash scripts/test.sh --fast: the fast tier on
# that Python, in a venv of its own (scripts/_venv.sh).
set -euo pipefail
fast=0
if [ "${1:-}" = --fast ]; then
  fast=1
  shift
fi
# The Debian packages the tests need: _venv.sh installs every missing one in one apt-get run (or, with
# neither root nor sudo, names them all in one line). The browser tests drive Debian's chromium
# through Playwright (never `playwright install`), whose driver needs libatomic1 (Debian 13's
# chromium pulls it in, Debian 12's does not); `baccarat casing --out FILE.png` draws its text in
# DejaVu Sans (fonts-dejavu-core); systemd for systemd-analyze, util-linux for setpriv, alsa-utils
# for aplay, git for tests/test_update.py (it installs from checkouts and `git archive`s; the
# updater itself does without git), mbpoll and liblo-tools for tests/test_clue_control_mbpoll.py and
# tests/test_osc*.py (a Modbus and an OSC client apart from pymodbus and python-osc), gettext for msgfmt,
# which checks the language catalogs as translators' tools do (tests/test_i18n_catalogs.py).
# shellcheck disable=SC2034  # read by _venv.sh
apt_packages=(mosquitto tmux chromium libatomic1 fonts-dejavu-core systemd shellcheck util-linux alsa-utils git mbpoll liblo-tools gettext)
# shellcheck source=scripts/_venv.sh
. "$(dirname "$0")/_venv.sh" test
. scripts/_nodered.sh  # Node-RED in .nodered/ (npm) for tests/test_redscape_nodered.py; _venv.sh cd-ed to the repo
. scripts/_axe.sh  # axe-core in .nodered/ (npm) for tests/test_a11y_pages.py
# Every xdist worker collects the whole suite, and pytest rewrites each test module's asserts as it
# imports it, keeping the result as bytecode in __pycache__ (git ignores it): where none is written
# (PYTHONDONTWRITEBYTECODE, as on some CI machines) each worker rewrote all of them again, a third
# of the fast tier's CPU.
unset PYTHONDONTWRITEBYTECODE
pytest_args=(-n auto --dist loadfile)
if [ "$fast" = 1 ]; then
  # Three workers a core: the fast tier's tests mostly wait (timers, sockets, a broker). worksteal:
  # a worker that is done takes tests from one that is not (a file's tests may share out).
  pytest_args=(-n "$(( 3 * $(nproc) ))" --dist worksteal --fast)
else
  .venv/bin/ruff check .
  .venv/bin/ruff format --check .
  .venv/bin/mypy  # strict, on baccarat_core and firmware: pyproject's [tool.mypy]
  .venv/bin/python scripts/check_pi_wheels.py
fi
status=0
if [ "$fast" = 1 ]; then
  # Collected once first, by one process: the workers then find the rewritten modules ready.
  "$venv"/bin/python -m pytest --collect-only -q -p no:cacheprovider --fast "$@" >/dev/null 2>&1 || true
fi
"$venv"/bin/python -m pytest "${pytest_args[@]}" "$@" || status=$?

find_python() {
  # find_python 3.X : the system's python3.X, else the newest of pyenv's 3.X versions; nothing if none.
  local candidate
  for candidate in /usr/bin/python"$1" /usr/local/bin/python"$1"; do
    if [ -x "$candidate" ]; then echo "$candidate"; return; fi
  done
  for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$1".*/bin/python"$1"; do
    [ -x "$candidate" ] && echo "$candidate"
  done | sort -V | tail -n 1 | grep .
}
# Everything (no --fast, no arguments): then the fast tier on each other Python the prop supports
# that this machine has (Debian 12 ships 3.11; Debian 13 and Raspberry Pi OS Trixie 3.13), each in a
# venv of its own made as .venv is (.venv312, .venv313, ...). About two minutes each on two cores.
if [ "$fast" = 0 ] && [ $# -eq 0 ] && [ -z "${BACCARAT_PYTHON:-}" ]; then
  default=$(.venv/bin/python -c 'import sys; print("%d%d" % sys.version_info[:2])')
  failed=()
  for minor in 11 12 13; do
    [ "3$minor" = "$default" ] && continue
    other=$(find_python "3.$minor") || continue
    echo "the fast tier on Python 3.$minor ($other), in .venv3$minor" >&2
    BACCARAT_PYTHON=$other BACCARAT_VENV=.venv3$minor bash scripts/test.sh --fast || failed+=("3.$minor")
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "error: the fast tier failed on Python ${failed[*]}" >&2
    status=1
  fi
fi
exit "$status"
