# shellcheck shell=bash
# Node-RED from npm in .nodered/ (gitignored), for the node-redscape tests (tests/test_redscape_nodered.py),
# which import examples/node-red/baccarat-flow.json into it and drive the prop through it.
# Usage: . scripts/_nodered.sh   (test.sh sources it after _venv.sh, whose apt_install it uses), or
#        bash scripts/_nodered.sh (then a missing node/npm is only named, not installed).
# Idempotent: quiet and quick when .nodered already holds this version. Node-RED 4.1 runs on the
# Node.js 18 of Debian 12 and the 20 of Debian 13 (Node-RED 5 needs 22.9). BACCARAT_NO_NODERED=1
# skips the install (the Node-RED test then skips and says why).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

NODE_RED_VERSION=4.1.8

nodered_installed() {
  [ -f .nodered/node_modules/node-red/package.json ] &&
    grep -q "\"version\": \"$NODE_RED_VERSION\"" .nodered/node_modules/node-red/package.json
}

if [ "${BACCARAT_NO_NODERED:-}" = 1 ]; then
  echo "note: BACCARAT_NO_NODERED=1: Node-RED not installed; its test skips" >&2
elif ! nodered_installed; then
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    if declare -F apt_install >/dev/null; then
      apt_install nodejs npm
    else
      echo "error: node and npm are missing: apt-get install nodejs npm, then run this again" >&2
      exit 1
    fi
  fi
  echo "installing Node-RED $NODE_RED_VERSION into .nodered with npm" >&2
  npm install --prefix .nodered --no-audit --no-fund --omit=dev --loglevel=error "node-red@$NODE_RED_VERSION" >/dev/null
  nodered_installed || { echo "error: npm did not install node-red $NODE_RED_VERSION into .nodered" >&2; exit 1; }
fi
