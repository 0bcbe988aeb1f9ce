#!/usr/bin/env bash
# Install a new version of the prop beside the running one, switch the service to it, and switch back
# if it does not start or does not last a minute (firmware/updates/releases.py; README.md, "Updates with a way back").
#   sudo bash scripts/update.sh                 install this checkout
#   sudo bash scripts/update.sh SOURCE          another checkout, a directory, or an archive (git archive)
#   sudo bash scripts/update.sh --rollback      back to the version before
# Only the system's python3 is needed: the new version's venv is made as part of the install.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source_given=0
expect_value=0
for arg in "$@"; do
  if [ "$expect_value" = 1 ]; then expect_value=0; continue; fi
  case "$arg" in
    --rollback|-h|--help) source_given=1;;
    --keep|--watch|--root) expect_value=1;;
    -*) ;;
    *) source_given=1;;
  esac
done
[ "$source_given" = 1 ] || set -- "$@" "$here"
cd "$here"
exec python3 -m firmware.updates.releases "$@"
