#!/usr/bin/env bash
# The prop on ARM without a Pi: Debian 12 and 13 root file systems for arm64 (64-bit, like Raspberry Pi
# OS 64-bit) and armhf (32-bit, like Raspberry Pi OS 32-bit), made with debootstrap and run under
# qemu-user-static through binfmt_misc, on this PC. For each ARCH:RELEASE, chrooted in a mount namespace
# of its own (nothing stays mounted; the chroot is no Pi, so start.sh takes the PC's path):
#   1. bash scripts/start.sh, the README's first command, in a terminal (tmux, 100x30): the simulator
#      draws the table, takes a bet (key 1) and quits (x) with status 0. On armhf the package index
#      has no pygame wheel: start.sh must end with one line saying so, and the check then does what
#      that line says (builds pygame) and runs start.sh again;
#   2. baccarat doctor: it says first that this is not a Raspberry Pi, and ends with its count line
#      (exit 0 or 1, no traceback);
#   3. bash scripts/test.sh with ARM_PYTEST_ARGS: ruff, mypy, the Pi wheel check and the fast tier of
#      the suite.
# It prints how long each step took and ends non-zero if any failed (docs/operate/arm-check.md says
# when to run it). It takes tens of minutes a target, more on a busy machine.
# Needs root, debootstrap, qemu-user-static, binfmt-support and tmux (installed if missing), a few GB
# of disk a target, and the network (a Debian mirror and PyPI).
#
# Usage: sudo bash scripts/check_arm.sh [ARCH:RELEASE ...]
#   default: arm64:bookworm armhf:bookworm arm64:trixie armhf:trixie
#   DEBIAN_MIRROR      the mirror debootstrap and apt-get use (default http://deb.debian.org/debian)
#   ARM_DIR            where the root file systems and logs go (default /var/tmp/baccarat-arm); a
#                      target's root file system is removed after it passes and kept after a failure
#   KEEP=1             keep the root file systems after a pass too
#   ARM_PYTEST_ARGS    pytest's arguments (default: the fast tier, with per-test timeouts five times
#                      the suite's for emulation: -m "not install and not browser" --timeout=600)
#   ARM_STEP_SECONDS   the longest a step may take (default 14400: 4 h, the suite under emulation)
#   ARM_READY_SECONDS  the longest start.sh may take to install and show the table (default 3600)
#   ARM_PIP_SECONDS    the longest the Pi wheel check's pip may take a target (default 3600)
#   PIP_CERT           passed on (the file with it) to pip inside, for a network that intercepts TLS
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/_chroot.sh
. scripts/_chroot.sh "$@"

[ "$(id -u)" = 0 ] || { echo "error: run as root (debootstrap, binfmt_misc and chroot need it)" >&2; exit 1; }
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=${ARM_DIR:-/var/tmp/baccarat-arm}
pytest_args=${ARM_PYTEST_ARGS:-'-m "not install and not browser" --timeout=600'}
ready_seconds=${ARM_READY_SECONDS:-3600}
export STEP_TIMEOUT=${ARM_STEP_SECONDS:-14400}
# The Pi wheel check's pip resolves six targets at once: minutes each under emulation.
export PI_WHEELS_TIMEOUT=${ARM_PIP_SECONDS:-3600}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(arm64:bookworm armhf:bookworm arm64:trixie armhf:trixie)
for target in "${targets[@]}"; do
  case "$target" in
    arm64:?* | armhf:?*) ;;
    *) echo "error: $target: give ARCH:RELEASE, ARCH arm64 or armhf (e.g. arm64:bookworm)" >&2; exit 2;;
  esac
done
need_tools debootstrap:debootstrap tmux:tmux qemu-aarch64-static:qemu-user-static update-binfmts:binfmt-support

# binfmt_misc runs the ARM binaries through qemu: mounted, and qemu's entries on.
binfmt=/proc/sys/fs/binfmt_misc
[ -e "$binfmt/status" ] || mount -t binfmt_misc binfmt_misc "$binfmt"
for name in qemu-aarch64 qemu-arm; do
  if ! grep -qx enabled "$binfmt/$name" 2>/dev/null; then
    update-binfmts --enable "$name" >/dev/null 2>&1 || true
  fi
  grep -qx enabled "$binfmt/$name" 2>/dev/null ||
    { echo "error: binfmt_misc has no $name entry: qemu-user-static cannot run ARM binaries here" >&2; exit 1; }
done
mkdir -p "$work"

for target in "${targets[@]}"; do
  arch=${target%%:*}
  release=$target
  rootfs="$work/${arch}-${target#*:}"
  logs="$rootfs-logs"
  refuse_mounted "$rootfs"
  rm -rf "$rootfs" "$logs"
  mkdir -p "$logs"

  begin "debootstrap --arch=$arch --variant=minbase --include=python3"
  if ! make_root "$rootfs" "$logs/debootstrap.log" --arch="$arch" --variant=minbase --include=python3 \
    "${target#*:}" "$rootfs" "$mirror"; then
    fail "debootstrap" "$logs/debootstrap.log"
    continue
  fi
  passed "$(chroot "$rootfs" uname -m), $(chroot "$rootfs" python3 -V)" "debootstrap"

  begin "start.sh (simulator: table, a bet, quit)"
  if [ "$arch" = armhf ]; then
    # No pygame wheel for 32-bit ARM: start.sh must say so in one line, and what to do.
    run_in "$rootfs" root 'bash scripts/start.sh' >"$logs/start-no-pygame.log" 2>&1 || true
    build=$(tail -n 1 "$logs/start-no-pygame.log" | sed -n 's/^error: the simulator needs pygame.*build it here, as root: //p')
    if [ -z "$build" ] || grep -q Traceback "$logs/start-no-pygame.log"; then
      fail "start.sh on armhf did not stop with one line on pygame" "$logs/start-no-pygame.log"
      continue
    fi
    if ! run_in "$rootfs" root "$build" >"$logs/build-pygame.log" 2>&1; then
      fail "building pygame as start.sh's line says" "$logs/build-pygame.log"
      continue
    fi
  fi
  if start_sim "$rootfs" "$logs/start.log" "$ready_seconds"; then passed "" "start.sh"; else fail "start.sh" "$logs/start.log"; fi

  begin "baccarat doctor"
  code=0
  run_in "$rootfs" root '.venv/bin/baccarat doctor' >"$logs/doctor.log" 2>&1 || code=$?
  if [ "$code" -gt 1 ] || grep -q Traceback "$logs/doctor.log" || ! head -n 1 "$logs/doctor.log" | grep -q "not a Raspberry Pi" ||
    ! tail -n 1 "$logs/doctor.log" | grep -q '^doctor: [0-9]* FAIL'; then
    fail "doctor (exit $code)" "$logs/doctor.log"
  else
    passed "$(tail -n 1 "$logs/doctor.log")" "doctor"
  fi

  begin "test.sh $pytest_args"
  if run_in "$rootfs" root "bash scripts/test.sh $pytest_args" >"$logs/test.log" 2>&1; then
    passed "$(tests_line "$logs/test.log")" "test.sh"
  else
    fail "test.sh: $(tests_line "$logs/test.log")" "$logs/test.log"
  fi

  if [ "$failed" = 0 ] && [ "${KEEP:-0}" != 1 ]; then rm -rf "$rootfs"; fi
done

print_summary "ARM under qemu: start.sh, the simulator, doctor, the fast tier (logs in $work/ARCH-RELEASE-logs):"
