#!/usr/bin/env bash
# Install the prop as a sandboxed systemd service on Raspberry Pi OS (Bookworm or Trixie, 32- or 64-bit).
# Run it from your checkout (docs/build/bring-up.md, "Where things live on the Pi"):
#   cd ~/baccarat && sudo bash scripts/install-service.sh
# The service runs the prop from /opt/baccarat (the unit's ExecStart points there): the first time, this
# copies the checkout there (its files as an update copies them: firmware/updates/build.py); later
# versions go in beside it with scripts/update.sh. Run from /opt/baccarat itself, it sets the system up
# again with the version there.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "error: run with sudo" >&2; exit 1; }
base=/opt/baccarat
if [ "$(pwd)" != "$base" ]; then
  if [ -e "$base/scripts/install-service.sh" ]; then
    echo "note: the prop is installed in $base already: setting the system up again with the version there (to install this checkout's version: sudo bash scripts/update.sh)" >&2
  else
    python3 -c 'import sys; from pathlib import Path; from firmware.updates.build import copy_source, source_files
tree = Path("."); copy_source(tree, source_files(tree), Path(sys.argv[1]))' "$base"
    echo "copied $(pwd) to $base, where the service runs it; keep working in $(pwd): git pull, then sudo bash scripts/update.sh"
  fi
  exec bash "$base/scripts/install-service.sh"
fi
# shellcheck source=scripts/_venv.sh
. scripts/_venv.sh ""   # no extras; on a Pi: GPIO, SPI and Pillow from Raspberry Pi OS, the rest as wheels
# Bytecode now, as root: the service cannot write under /opt (ProtectSystem=strict), so without
# it Python would compile the project's modules again on every start (benchmarks/README.md).
.venv/bin/python -m compileall -q -j 0 baccarat_core firmware .venv/lib >/dev/null

id baccarat >/dev/null 2>&1 || useradd --system --home-dir /var/lib/baccarat --shell /usr/sbin/nologin baccarat
# baccarat-control: the control socket's group, for game masters (the unit's Group=). The baccarat
# group reads the config's secrets and holds the service's user alone.
for group in gpio i2c spi audio baccarat-control; do getent group "$group" >/dev/null || groupadd --system "$group"; done
usermod -a -G gpio,i2c,spi,audio baccarat
# An earlier install told game masters to join the baccarat group for the socket: move them.
members=$(getent group baccarat | cut -d: -f4)
for user in ${members//,/ }; do
  [ "$user" != baccarat ] || continue
  usermod -a -G baccarat-control "$user"
  gpasswd -d "$user" baccarat >/dev/null
  echo "moved $user from the baccarat group (which can read the config's secrets) to baccarat-control (the control socket); it takes effect at their next login"
done

# The config may hold the MQTT password: readable by root and the service only.
install -d -m 750 -o root -g baccarat /etc/baccarat
if [ -f /etc/baccarat/config.toml ]; then
  if [ -n "$(find /etc/baccarat/config.toml -perm /o+r)" ] || [ "$(stat -c %G /etc/baccarat/config.toml)" != baccarat ]; then
    chown root:baccarat /etc/baccarat/config.toml && chmod 640 /etc/baccarat/config.toml
    echo "made /etc/baccarat/config.toml readable by root and the baccarat group only (0640)"
  fi
else
  install -m 640 -o root -g baccarat firmware/config/default-config.toml /etc/baccarat/config.toml
fi
# Checked as the service's user, so a file it cannot read shows here and not at start.
runuser -u baccarat -- .venv/bin/baccarat check-config /etc/baccarat/config.toml

# The unit and the command go through /opt/baccarat/current: this checkout until `baccarat update`
# installs versions beside it (README.md, "Updates with a way back").
[ -L current ] || ln -s . current
[ "$(readlink current)" = . ] || echo "note: the service runs $(readlink current); new versions: sudo baccarat update SOURCE"
# The game-master commands (baccarat status, hint, ...) on every user's PATH.
ln -sfn /opt/baccarat/current/.venv/bin/baccarat /usr/local/bin/baccarat
install -m 644 firmware/baccarat.service /etc/systemd/system/baccarat.service
# What the config's room services need beyond the unit (Clue Control on port 502: CAP_NET_BIND_SERVICE),
# as a drop-in; none when they need nothing (docs/operate/service.md, "A room service that needs more").
dropin_dir=/etc/systemd/system/baccarat.service.d
dropin=$(runuser -u baccarat -- .venv/bin/baccarat unit-dropin --config /etc/baccarat/config.toml)
if [ -n "$dropin" ]; then
  install -d -m 755 "$dropin_dir"
  printf '%s\n' "$dropin" >"$dropin_dir/50-services.conf"
  chmod 644 "$dropin_dir/50-services.conf"
  echo "the config's room services need more from the unit: $dropin_dir/50-services.conf"
elif [ -e "$dropin_dir/50-services.conf" ]; then
  rm -f "$dropin_dir/50-services.conf"
  echo "removed $dropin_dir/50-services.conf: the config's room services need nothing more"
fi
systemctl daemon-reload
systemctl enable baccarat.service
systemctl restart baccarat.service   # also picks up a new unit, drop-in or venv on a re-install
systemctl --no-pager status baccarat.service || true
systemd-analyze security --no-pager baccarat.service 2>/dev/null | tail -n 1 || true
echo "installed: logs with  journalctl -u baccarat -f"
echo "game masters use the control socket (baccarat status, hint, ...) after: sudo usermod -aG baccarat-control USER (then log in again)"
