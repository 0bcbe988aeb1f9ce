# shellcheck shell=bash
# Shared by check_fresh_debian.sh and check_arm.sh: Debian roots made with debootstrap, this working
# tree copied into them, commands run there chrooted in a mount namespace of their own (nothing stays
# mounted), the simulator driven in a tmux terminal, and a summary of the steps.
#
# The caller sources it with its own arguments (`. scripts/_chroot.sh "$@"`): called as
# `SCRIPT --run-in ROOTFS USER COMMAND` (tmux runs the simulator so), it runs that and exits here.
# The caller sets `release` to the name shown before each step.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self="$repo/scripts/$(basename "${BASH_SOURCE[1]}")"
release=${release:-}

# run_in ROOTFS USER COMMAND : COMMAND (a bash line, in the copy of the repository) in ROOTFS as USER
# (root or player), with a clean environment as a login would give (PIP_CERT's file and PI_WHEELS_TIMEOUT
# passed on). STEP_TIMEOUT (seconds), when set, ends it with status 124 once it has run that long.
run_in() {
  local rootfs=$1 user=$2 command=$3 home=/root
  [ "$user" = root ] || home=/home/$user
  local env=(HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 TERM=xterm-256color
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
  [ -f "$rootfs/etc/baccarat-check/pip-cert.pem" ] && env+=(PIP_CERT=/etc/baccarat-check/pip-cert.pem)
  [ -z "${PI_WHEELS_TIMEOUT:-}" ] || env+=(PI_WHEELS_TIMEOUT="$PI_WHEELS_TIMEOUT")
  # shellcheck disable=SC2016  # expanded by the inner bash, in the new mount namespace
  limited unshare --mount --propagation private -- bash -euc '
    rootfs=$1; user=$2; shift 2
    mount --bind "$rootfs" "$rootfs"  # its / a mount point, as on a real system (unshare needs one)
    mount -t proc proc "$rootfs/proc"
    mount -t sysfs sysfs "$rootfs/sys"
    mount --rbind /dev "$rootfs/dev"
    mount -t tmpfs -o mode=0755 tmpfs "$rootfs/run"
    exec chroot --userspec="$user:$user" "$rootfs" "$@"' _ "$rootfs" "$user" \
    env -i "${env[@]}" bash -c "cd ~/baccarat && $command"
}

# limited COMMAND... : COMMAND, ended with status 124 after STEP_TIMEOUT seconds when that is set. In a
# terminal (the simulator's tmux pane) timeout must leave COMMAND in the terminal's foreground process
# group (--foreground): else the first program that sets up the terminal (apt-get's dpkg, the
# simulator) is stopped by SIGTTOU, as a background job is.
limited() {
  if [ -z "${STEP_TIMEOUT:-}" ]; then
    "$@"
  elif [ -t 0 ]; then
    timeout --foreground --kill-after=60 "$STEP_TIMEOUT" "$@"
  else
    timeout --kill-after=60 "$STEP_TIMEOUT" "$@"
  fi
}

# need_tools COMMAND:PACKAGE... : install the Debian packages of the commands that are missing.
need_tools() {
  local missing=() pair
  for pair in "$@"; do command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}"); done
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "installing ${missing[*]} with apt-get" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# make_root ROOTFS LOG DEBOOTSTRAP_ARGS... : a fresh root file system with a user "player" and this
# tree copied to ~root/baccarat and ~player/baccarat; false (the log says why) if debootstrap failed.
make_root() {
  local rootfs=$1 log=$2
  shift 2
  limited debootstrap "$@" >"$log" 2>&1 || return 1
  cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
  if [ -n "${PIP_CERT:-}" ] && [ -f "$PIP_CERT" ]; then
    mkdir -p "$rootfs/etc/baccarat-check" && cp "$PIP_CERT" "$rootfs/etc/baccarat-check/pip-cert.pem"
  fi
  chroot "$rootfs" useradd -m -s /bin/bash player
  copy_repo "$rootfs" root
  copy_repo "$rootfs" player
}

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

# refuse_mounted ROOTFS : stop if anything is mounted below ROOTFS (an earlier run that was killed).
refuse_mounted() {
  if grep -qF " $1/" /proc/mounts; then
    echo "error: something is mounted under $1; unmount it first" >&2
    exit 1
  fi
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

tmux_sock="baccarat-check-$$"
# shellcheck disable=SC2317  # run by the trap
stop_tmux() { tmux -L "$tmux_sock" kill-server 2>/dev/null || true; }
trap stop_tmux EXIT

# start_sim ROOTFS LOG [READY_SECONDS] : start.sh in a 100x30 terminal; the table, a bet (key 1), then
# x: true when all came and it quit with status 0. READY_SECONDS (default 1200) is how long the
# install and the start may take.
start_sim() {
  local rootfs=$1 log=$2 ready=${3:-1200} status="$2.status"
  rm -f "$status"
  # The exit status goes to a file: tmux 3.3 was seen to leave the pane's process unreaped (a zombie,
  # the pane dead with no status) while a loaded machine ran other work.
  tmux -L "$tmux_sock" -f /dev/null new-session -d -s sim -x 100 -y 30 \
    "bash $(printf %q "$self") --run-in $(printf %q "$rootfs") root 'bash scripts/start.sh'; echo \$? >$(printf %q "$status")"
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
  if wait_for "ready: inputs armed" "$ready"; then
    tmux -L "$tmux_sock" send-keys -t sim 1
    if wait_for "chip \$1 on player" 120; then
      tmux -L "$tmux_sock" send-keys -t sim x
      local deadline=$((SECONDS + 120))
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

# print_summary TITLE : the steps of every release, then exit with 1 if any failed.
print_summary() {
  echo
  echo "$1"
  printf '  %s\n' "${summary[@]}"
  exit "$failed"
}

# (tmux runs a step in a terminal through this entry point)
if [ "${1:-}" = --run-in ]; then
  shift
  run_in "$@"
  exit
fi
