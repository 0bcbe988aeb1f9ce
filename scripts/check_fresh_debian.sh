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
repo=$(pwd)

# run_in ROOTFS USER COMMAND : COMMAND (a bash line, in the copy of the repository) in ROOTFS as USER
# (root or player), with a clean environment as a login would give.
run_in() {
  local rootfs=$1 user=$2 command=$3 home=/root
  [ "$user" = root ] || home=/home/$user
  local env=(HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 TERM=xterm-256color
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
  [ -f "$rootfs/etc/baccarat-check/pip-cert.pem" ] && env+=(PIP_CERT=/etc/baccarat-check/pip-cert.pem)
  # shellcheck disable=SC2016  # expanded by the inner bash, in the new mount namespace
  unshare --mount --propagation private -- bash -euc '
    rootfs=$1; user=$2; shift 2
    mount --bind "$rootfs" "$rootfs"  # its / a mount point, as on a real system (unshare needs one)
    mount -t proc proc "$rootfs/proc"
    mount -t sysfs sysfs "$rootfs/sys"
    mount --rbind /dev "$rootfs/dev"
    mount -t tmpfs -o mode=0755 tmpfs "$rootfs/run"
    exec chroot --userspec="$user:$user" "$rootfs" "$@"' _ "$rootfs" "$user" \
    env -i "${env[@]}" bash -c "cd ~/baccarat && $command"
}

# (tmux runs a step in a terminal through this entry point)
if [ "${1:-}" = --run-in ]; then
  shift
  run_in "$@"
  exit
fi

[ "$(id -u)" = 0 ] || { echo "error: run as root (debootstrap and chroot need it)" >&2; exit 1; }
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
fresh=${FRESH_DIR:-/var/tmp/baccarat-fresh-debian}
releases=("$@")
[ ${#releases[@]} -gt 0 ] || releases=(bookworm trixie)
missing=()
command -v debootstrap >/dev/null || missing+=(debootstrap)
command -v tmux >/dev/null || missing+=(tmux)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} with apt-get" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
mkdir -p "$fresh"
tmux_sock="baccarat-fresh-$$"
# shellcheck disable=SC2317  # run by the trap
cleanup() { tmux -L "$tmux_sock" kill-server 2>/dev/null || true; }
trap cleanup EXIT

# copy_repo ROOTFS USER : this working tree (without its venv and caches) into ~USER/baccarat.
copy_repo() {
  local rootfs=$1 user=$2 home=/root
  [ "$user" = root ] || home=/home/$user
  mkdir -p "$rootfs$home/baccarat"
  tar -C "$repo" --exclude=./.venv --exclude-vcs --exclude=__pycache__ --exclude='*.egg-info' \
    --exclude=./.hypothesis --exclude=./.ruff_cache --exclude=./.pytest_cache -cf - . |
    tar -C "$rootfs$home/baccarat" -xf -
  chroot "$rootfs" chown -R "$user:$user" "$home/baccarat"
}

summary=()
failed=0
step_start=0
begin() { step_start=$SECONDS; printf '%s: %s ... ' "$release" "$1"; }
passed() { local took=$((SECONDS - step_start)); echo "ok (${took} s${1:+, $1})"; summary+=("$release  $took s  $2${1:+ ($1)}"); }
fail() {
  local took=$((SECONDS - step_start))
  echo "FAILED (${took} s): $1"
  [ -z "${2:-}" ] || tail -n 30 "$2" | sed 's/^/    /'
  summary+=("$release  FAILED  $1")
  failed=1
}
tests_line() { grep -aE '[0-9]+ (passed|failed)' "$1" | tail -n 1 | tr -d '=' | sed 's/^ *//;s/ *$//'; }

# start_sim ROOTFS LOG : start.sh in a 100x30 terminal; the table, a bet, then x: true when all came.
start_sim() {
  local rootfs=$1 log=$2 status="$2.status"
  rm -f "$status"
  # The exit status goes to a file: tmux 3.3 was seen to leave the pane's process unreaped (a zombie,
  # the pane dead with no status) while a loaded machine ran other work.
  tmux -L "$tmux_sock" -f /dev/null new-session -d -s sim -x 100 -y 30 \
    "bash $(printf %q "$repo/scripts/check_fresh_debian.sh") --run-in $(printf %q "$rootfs") root 'bash scripts/start.sh'; echo \$? >$(printf %q "$status")"
  tmux -L "$tmux_sock" set-option -t sim remain-on-exit on >/dev/null
  screen() { tmux -L "$tmux_sock" capture-pane -p -t sim -S -200; }
  wait_for() {  # wait_for TEXT SECONDS
    local deadline=$((SECONDS + $2))
    while [ $SECONDS -lt $deadline ]; do
      [[ "$(screen)" == *"$1"* ]] && return 0
      [ "$(tmux -L "$tmux_sock" display -p -t sim '#{pane_dead}')" = 1 ] && return 1
      sleep 2
    done
    return 1
  }
  local ok=0
  if wait_for "ready: inputs armed" 1200; then
    tmux -L "$tmux_sock" send-keys -t sim 1
    if wait_for "chip \$1 on player" 30; then
      tmux -L "$tmux_sock" send-keys -t sim x
      local deadline=$((SECONDS + 30))
      while [ $SECONDS -lt $deadline ] && [ ! -s "$status" ]; do
        sleep 1
      done
      [ "$(cat "$status" 2>/dev/null)" = 0 ] && ok=1
    fi
  fi
  screen >"$log"
  tmux -L "$tmux_sock" kill-session -t sim
  [ "$ok" = 1 ]
}

for release in "${releases[@]}"; do
  rootfs="$fresh/$release"
  logs="$fresh/$release-logs"
  if grep -qF " $rootfs/" /proc/mounts; then
    echo "error: something is mounted under $rootfs; unmount it first" >&2
    exit 1
  fi
  rm -rf "$rootfs" "$logs"
  mkdir -p "$logs"

  begin "debootstrap --variant=minbase --include=python3"
  if ! debootstrap --variant=minbase --include=python3 "$release" "$rootfs" "$mirror" >"$logs/debootstrap.log" 2>&1; then
    fail "debootstrap" "$logs/debootstrap.log"
    continue
  fi
  cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
  if [ -n "${PIP_CERT:-}" ] && [ -f "$PIP_CERT" ]; then
    mkdir -p "$rootfs/etc/baccarat-check" && cp "$PIP_CERT" "$rootfs/etc/baccarat-check/pip-cert.pem"
  fi
  chroot "$rootfs" useradd -m -s /bin/bash player
  copy_repo "$rootfs" root
  copy_repo "$rootfs" player
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

echo
echo "fresh Debian, the README's two commands (logs in $fresh/RELEASE-logs):"
printf '  %s\n' "${summary[@]}"
exit "$failed"
