#!/usr/bin/env bash
# The README's two commands on fresh Debian systems, as a new user meets them. For each release
# (default: bookworm and trixie, Debian 12 and 13) it makes a minimal root file system with
# debootstrap (--variant=minbase plus python3: "only python3", as the README says), copies this
# working tree into it, and, chrooted there in a mount namespace of its own (nothing stays mounted):
#   1. as a user without root or sudo: bash scripts/test.sh stops at once with one line that names
#      every missing package (python3-venv and all the tests need);
#   2. as root: bash scripts/start.sh in a terminal (tmux, 100x30): the simulator draws the table,
#      takes a bet (key 1) and quits (x) with status 0;
#   3. as root: bash scripts/test.sh, the whole suite;
#   4. as root: bash scripts/start.sh again: the simulator starts with no pip run (the venv's stamp is
#      unchanged);
#   5. as the user again: bash scripts/test.sh tests/test_pi_install.py -rs, which passes and leaves
#      nothing in /tmp.
# It prints how long each step took and ends non-zero if any failed.
# Needs root, debootstrap and tmux (installed if missing), a few GB of disk a release, and the network
# (a Debian mirror and PyPI). 20-30 minutes for both releases on 2 shared cores (README, "Development").
#
# Usage: sudo bash scripts/check_fresh_debian.sh [RELEASE...]
#   DEBIAN_MIRROR  the mirror debootstrap and apt-get use (default http://deb.debian.org/debian)
#   FRESH_DIR      where the root file systems and logs go (default /var/tmp/baccarat-fresh-debian);
#                  a release's root file system is removed after it passes and kept after a failure
#   KEEP=1         keep the root file systems after a pass too
#   PIP_CERT       passed on (the file with it) to pip inside, for a network that intercepts TLS
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/_chroot.sh
. scripts/_chroot.sh "$@"

[ "$(id -u)" = 0 ] || { echo "error: run as root (debootstrap and chroot need it)" >&2; exit 1; }
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
fresh=${FRESH_DIR:-/var/tmp/baccarat-fresh-debian}
releases=("$@")
[ ${#releases[@]} -gt 0 ] || releases=(bookworm trixie)
need_tools debootstrap:debootstrap tmux:tmux
mkdir -p "$fresh"

for release in "${releases[@]}"; do
  rootfs="$fresh/$release"
  logs="$fresh/$release-logs"
  refuse_mounted "$rootfs"
  rm -rf "$rootfs" "$logs"
  mkdir -p "$logs"

  begin "debootstrap --variant=minbase --include=python3"
  if ! make_root "$rootfs" "$logs/debootstrap.log" --variant=minbase --include=python3 "$release" "$rootfs" "$mirror"; then
    fail "debootstrap" "$logs/debootstrap.log"
    continue
  fi
  passed "$(chroot "$rootfs" python3 -V)" "debootstrap"

  begin "test.sh as a user without root or sudo"
  if run_in "$rootfs" player 'bash scripts/test.sh' >"$logs/user-test.log" 2>&1; then
    fail "test.sh as a user without sudo exited 0" "$logs/user-test.log"
  elif [ "$(grep -c . "$logs/user-test.log")" != 1 ] || ! grep -q '^error: python3-venv .*libatomic1.* missing and no sudo here' "$logs/user-test.log"; then
    fail "test.sh as a user without sudo did not name every missing package in one line" "$logs/user-test.log"
  else
    passed "one line" "test.sh without root or sudo"
  fi

  begin "start.sh as root (simulator: table, a bet, quit)"
  if start_sim "$rootfs" "$logs/start.log"; then passed "" "start.sh"; else fail "start.sh" "$logs/start.log"; fi

  begin "test.sh as root (the whole suite)"
  if run_in "$rootfs" root 'bash scripts/test.sh' >"$logs/test.log" 2>&1; then
    passed "$(tests_line "$logs/test.log")" "test.sh"
  else
    fail "test.sh: $(tests_line "$logs/test.log")" "$logs/test.log"
  fi

  begin "start.sh again (no pip)"
  stamp="$rootfs/root/baccarat/.venv/.baccarat-installed"
  before=$(stat -c %Y.%s "$stamp" 2>/dev/null || echo none)
  if start_sim "$rootfs" "$logs/start-again.log" && [ "$(stat -c %Y.%s "$stamp" 2>/dev/null || echo none)" = "$before" ]; then
    passed "" "start.sh after test.sh"
  else
    fail "start.sh after test.sh (stamp $before)" "$logs/start-again.log"
  fi

  begin "test_pi_install.py as the user without root"
  leftovers_before=$(find "$rootfs/tmp" -mindepth 1 -maxdepth 1 -name 'baccarat-*' | wc -l)
  if run_in "$rootfs" player 'bash scripts/test.sh tests/test_pi_install.py -rs' >"$logs/user-pi-install.log" 2>&1 &&
    [ "$(find "$rootfs/tmp" -mindepth 1 -maxdepth 1 -name 'baccarat-*' | wc -l)" = "$leftovers_before" ]; then
    passed "$(tests_line "$logs/user-pi-install.log")" "test_pi_install.py without root"
  else
    fail "test_pi_install.py without root: $(tests_line "$logs/user-pi-install.log")" "$logs/user-pi-install.log"
  fi

  if [ "$failed" = 0 ] && [ "${KEEP:-0}" != 1 ]; then rm -rf "$rootfs"; fi
done

print_summary "fresh Debian, the README's two commands (logs in $fresh/RELEASE-logs):"
