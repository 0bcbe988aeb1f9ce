# shellcheck shell=bash
# Shared by start.sh, test.sh and install-service.sh: make .venv with the project installed.
# Usage: . scripts/_venv.sh EXTRAS   (as in pyproject, e.g. "sim" or "test"; "" for none: a sourced
# file without arguments would see the caller's own)
# A caller that needs Debian packages besides the venv's sets the array apt_packages first (test.sh):
# every one that is missing is installed in the same apt-get run, or named in the same one line.
#
# On a PC: a plain venv; pip installs the project and its extras.
# On a Raspberry Pi (/proc/device-tree/model says so) nothing is compiled: the compiled pieces come
# from Raspberry Pi OS (apt-get: scripts/pi-os-packages.txt and the RPi.GPIO API for the model), the
# venv is made with --system-site-packages so pip sees them, and pip takes only wheels for the rest
# (--only-binary=:all:; scripts/check_pi_wheels.py proves there is one for every Pi).
# A .venv without pip (a venv made before python3-venv was there), from another Python, or on a Pi
# one that cannot see the OS's packages, is made again. Quiet unless it installs something.
# BACCARAT_MODEL_FILE replaces /proc/device-tree/model (for the tests).
# Off a Pi, pip prefers an older version with a wheel to a newer one it would have to build
# (--prefer-binary: cbor2's newest is Rust to compile on 32-bit ARM); where the package index has no
# wheel at all (pygame on 32-bit ARM), or apt knows no package asked for, it stops with one line that
# says what to do.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The interpreter and the venv's folder: python3 and .venv, unless BACCARAT_PYTHON and BACCARAT_VENV
# name others (test.sh runs the fast tier on each Python it finds, each in a venv of its own).
py=${BACCARAT_PYTHON:-python3}
venv=${BACCARAT_VENV:-.venv}

pi_model() { tr -d '\0' 2>/dev/null <"${BACCARAT_MODEL_FILE:-/proc/device-tree/model}" || true; }
on_pi() { pi_model | grep -q "Raspberry Pi"; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() {
  # apt_install PACKAGE... : install the Debian packages that are missing.
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null; then
    echo "error: ${missing[*]} missing and no sudo here; as root, run: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "installing ${missing[*]} with apt-get" >&2
  as_root apt-get update -qq
  local err unknown
  if ! err=$(as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" 2>&1 >/dev/null); then
    unknown=$(printf '%s\n' "$err" | grep '^E: Unable to locate package ' | cut -d' ' -f6 | tr '\n' ' ' || true)
    if [ -n "$unknown" ] && [ "$pi" = 1 ]; then
      echo "error: apt knows no package ${unknown% }: it comes from Raspberry Pi OS's own archive (archive.raspberrypi.com), which this system's apt does not use; install Raspberry Pi OS (hardware/README.md, section 2), or add that archive to apt's sources" >&2
    elif [ -n "$unknown" ]; then
      echo "error: apt knows no package ${unknown% } on this system (after apt-get update); the prop is made for Debian 12 or 13 and Raspberry Pi OS" >&2
    else
      echo "error: apt-get install ${missing[*]} failed: $(printf '%s\n' "$err" | grep -v '^\s*$' | tail -n 1)" >&2
    fi
    exit 1
  fi
}

# The RPi.GPIO API, through which luma drives the SPI display's DC and RST lines: python3-rpi-lgpio
# (on lgpio; the only one that works on a Pi 5), or python3-rpi.gpio where the OS already has it
# on an older model. The two cannot be installed together.
rpi_gpio_package() {
  if ! dpkg -s python3-rpi-lgpio >/dev/null 2>&1 && dpkg -s python3-rpi.gpio >/dev/null 2>&1; then
    if ! pi_model | grep -qE "Raspberry Pi (5|500)|Compute Module 5"; then echo python3-rpi.gpio; return; fi
    echo "note: python3-rpi-lgpio replaces python3-rpi.gpio, which does not work on a Pi 5" >&2
  fi
  echo python3-rpi-lgpio
}

if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "error: $py is $("$py" -V 2>&1); the prop needs Python 3.11 or newer" >&2
  exit 1
fi

pi=0
on_pi && pi=1
# The machine as pip sees it (BACCARAT_MACHINE replaces it, for the tests).
machine=${BACCARAT_MACHINE:-$(uname -m 2>/dev/null || true)}
# What building pygame needs, where the package index has no wheel of it (32-bit ARM).
pygame_build=(build-essential python3-dev pkg-config libsdl2-dev libsdl2-image-dev libsdl2-mixer-dev
  libsdl2-ttf-dev libfreetype-dev libportmidi-dev libjpeg-dev)

venv_ok() {
  [ -x "$venv"/bin/python ] && "$venv"/bin/python -m pip --version >/dev/null 2>&1 || return 1
  local want; want=$("$py" -c 'import sys; print(sys.version_info[:2])')
  [ "$("$venv"/bin/python -c 'import sys; print(sys.version_info[:2])')" = "$want" ] || return 1
  [ "$pi" = 0 ] || grep -qsE '^include-system-site-packages *= *true' "$venv"/pyvenv.cfg
}
# Every Debian package needed, looked up first and installed (or named) all at once.
wanted=()
if [ "$pi" = 1 ]; then
  mapfile -t os_packages < <(awk '!/^#/ && NF {print $1}' scripts/pi-os-packages.txt)
  # fonts-dejavu-core: the TrueType font `baccarat casing --out FILE.png` draws with (Bookworm's
  # Pillow has no scalable font of its own); Raspberry Pi OS Lite may not have it.
  wanted+=("${os_packages[@]}" "$(rpi_gpio_package)" fonts-dejavu-core)
fi
# Debian keeps ensurepip, which venv needs to put pip in, in python3-venv: without it venv prints
# a page of advice and leaves a .venv without pip. Look first, and keep venv's own output quiet.
# (For another Python than python3, Debian's package is that version's: python3.13-venv.)
venv_package=python3-venv
[ "$py" = python3 ] || venv_package=python$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv
venv_ok || "$py" -c 'import ensurepip' >/dev/null 2>&1 || wanted+=("$venv_package")
wanted+=(${apt_packages[@]+"${apt_packages[@]}"})
[ ${#wanted[@]} -eq 0 ] || apt_install "${wanted[@]}"

if ! venv_ok; then
  rm -rf "$venv"
  venv_args=()
  [ "$pi" = 1 ] && venv_args+=(--system-site-packages)
  if ! out=$("$py" -m venv "${venv_args[@]}" "$venv" 2>&1); then
    echo "error: $py -m venv failed: $(printf '%s\n' "$out" | grep -v '^\s*$' | tail -n 1)" >&2
    exit 1
  fi
fi

# pip runs again only when pyproject.toml changed or an extra is asked for whose packages are not
# all in the venv yet (the project itself is installed editable, so its code needs no reinstall):
# after test.sh (extra "test", a superset of "sim"), start.sh (extra "sim") runs no pip, offline too.
# The stamp lists every extra installed so far; a reinstall installs them all again with the new one.
extras_present() {
  # extras_present EXTRA... : true when every package these extras of the project need is installed.
  "$venv"/bin/python - "$@" <<'PY'
import re
import sys
from importlib import metadata

try:
    requirements = metadata.requires("baccarat-prop") or []
except metadata.PackageNotFoundError:
    sys.exit(1)
for requirement in requirements:
    name, _, marker = requirement.partition(";")
    extra = re.search(r"extra\s*==\s*[\"']([^\"']+)", marker)
    if extra and extra.group(1) in sys.argv[1:]:
        try:
            metadata.version(re.match(r"[A-Za-z0-9._-]+", name.strip()).group(0))
        except metadata.PackageNotFoundError:
            sys.exit(1)
PY
}
hash=$(sha256sum pyproject.toml | cut -d' ' -f1)
old_hash="" old_pi="" old_extras=""
[ -f "$venv"/.baccarat-installed ] && read -r old_hash old_pi old_extras <"$venv"/.baccarat-installed
declare -A have=()
if [ "$old_pi" = "pi=$pi" ]; then
  for extra in ${old_extras#extras=}; do have[$extra]=1; done
fi
new_extra=0
for extra in ${1:-}; do [ -n "${have[$extra]:-}" ] || { new_extra=1; have[$extra]=1; }; done
# shellcheck disable=SC2086  # the extras are words
if [ "$old_hash" != "$hash" ] || [ "$old_pi" != "pi=$pi" ] || { [ "$new_extra" = 1 ] && ! extras_present ${1:-}; }; then
  extras=$(IFS=,; echo "${!have[*]}")
  pip_args=(-q --disable-pip-version-check --prefer-binary)
  [ "$pi" = 1 ] && pip_args+=(--only-binary=:all:)  # wheels only: nothing to compile on a Pi
  if [ "$pi" = 0 ] && [[ "$machine" == armv[67]l ]] && [[ ",$extras," =~ ,(sim|test), ]] &&
    ! "$venv"/bin/python -c 'import pygame' >/dev/null 2>&1; then
    echo "error: the simulator needs pygame, and the package index has no pygame wheel for $machine: run the simulator on a 64-bit OS or a PC (on a Raspberry Pi, start.sh runs the prop itself, which needs no pygame), or build it here, as root: apt-get install -y ${pygame_build[*]} && $venv/bin/python -m pip install pygame" >&2
    exit 1
  fi
  if ! out=$("$venv"/bin/python -m pip install "${pip_args[@]}" -e ".${extras:+[$extras]}" 2>&1); then
    printf '%s\n' "$out" >"$venv"/pip-install.log
    # pip's last ERROR line (a build step's are indented), else its last line saying error
    reason=$(printf '%s\n' "$out" | grep -E '^\s*ERROR:' | tail -n 1 || true)
    [ -n "$reason" ] || reason=$(printf '%s\n' "$out" | grep -iE '^\s*error' | tail -n 1 || true)
    reason=${reason#"${reason%%[![:space:]]*}"}
    reason=${reason#ERROR: }
    echo "error: pip could not install the prop's packages: ${reason:-see the log} (pip's whole output: $venv/pip-install.log)" >&2
    exit 1
  fi
  echo "$hash pi=$pi extras=${!have[*]}" >"$venv"/.baccarat-installed
fi
# The language catalogs: each firmware/locale/*/LC_MESSAGES/baccarat.po compiled by Babel in pure
# Python (docs/run/language.md); build output, never committed. Quiet; one line if one cannot be read.
"$venv"/bin/python -m firmware.i18n
if [ "$pi" = 1 ] && ! err=$("$venv"/bin/python -c 'import lgpio, spidev, PIL, RPi.GPIO' 2>&1); then
  echo "error: the venv cannot use Raspberry Pi OS's packages ($(printf '%s\n' "$err" | tail -n 1))" >&2
  exit 1
fi
# The docs site the prop serves at /docs/, built with the prop's own install (no extras: a Pi's
# start.sh, install-service.sh, an update's new version); never fails the install (scripts/build_docs.sh).
if [ -z "${1:-}" ]; then bash scripts/build_docs.sh || true; fi
