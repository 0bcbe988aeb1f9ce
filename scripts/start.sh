#!/usr/bin/env bash
# Installs the prop and starts it: the daemon on a Raspberry Pi, the simulator on a PC.
# Extra arguments go to `baccarat run` (e.g. --config my-config.toml).
set -euo pipefail
if grep -qs "Raspberry Pi" /proc/device-tree/model; then
  . "$(dirname "$0")/_venv.sh" pi
  exec .venv/bin/baccarat run "$@"
fi
. "$(dirname "$0")/_venv.sh" sim
exec .venv/bin/baccarat run --simulate "$@"
