#!/usr/bin/env bash
# Installs the prop and starts it: the daemon on a Raspberry Pi, the simulator on a PC.
# Extra arguments go to `baccarat run` (e.g. --config my-config.toml).
set -euo pipefail
if grep -qs "Raspberry Pi" "${BACCARAT_MODEL_FILE:-/proc/device-tree/model}"; then
  # shellcheck source=scripts/_venv.sh
  . "$(dirname "$0")/_venv.sh" ""   # no extras (not $@); GPIO, SPI and Pillow from Raspberry Pi OS, the rest as wheels
  exec .venv/bin/baccarat run "$@"
fi
# shellcheck source=scripts/_venv.sh
. "$(dirname "$0")/_venv.sh" sim
bash "$(dirname "$0")/build_docs.sh" || true   # the docs at /docs/ (when docs/ changed; never stops the start)
exec .venv/bin/baccarat run --simulate "$@"
