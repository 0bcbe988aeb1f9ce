# shellcheck shell=bash
# axe-core (Deque's accessibility rules) from npm into .nodered/ (the tests' npm folder, gitignored),
# for the accessibility tests (tests/test_a11y_pages.py), which inject its axe.min.js into each page
# in Chromium and fail on any serious or critical violation.
# Usage: . scripts/_axe.sh   (test.sh sources it after _nodered.sh), or bash scripts/_axe.sh.
# Idempotent: quiet and quick when .nodered already holds this version. BACCARAT_NO_AXE=1 skips the
# install (the accessibility tests then skip and say why).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

AXE_VERSION=4.14.1

axe_installed() {
  [ -f .nodered/node_modules/axe-core/package.json ] &&
    grep -q "\"version\": \"$AXE_VERSION\"" .nodered/node_modules/axe-core/package.json
}

if [ "${BACCARAT_NO_AXE:-}" = 1 ]; then
  echo "note: BACCARAT_NO_AXE=1: axe-core not installed; the accessibility tests skip" >&2
elif ! axe_installed; then
  if ! command -v npm >/dev/null; then
    if declare -F apt_install >/dev/null; then
      apt_install nodejs npm
    else
      echo "error: npm is missing: apt-get install nodejs npm, then run this again" >&2
      exit 1
    fi
  fi
  echo "installing axe-core $AXE_VERSION into .nodered with npm" >&2
  npm install --prefix .nodered --no-audit --no-fund --omit=dev --loglevel=error "axe-core@$AXE_VERSION" >/dev/null
  axe_installed || { echo "error: npm did not install axe-core $AXE_VERSION into .nodered" >&2; exit 1; }
fi
