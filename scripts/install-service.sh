#!/usr/bin/env bash
# Install the prop as a systemd service on Raspberry Pi OS. Run from a clone at /opt/baccarat:
#   sudo git clone <this repository> /opt/baccarat && sudo bash /opt/baccarat/scripts/install-service.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(pwd)" != /opt/baccarat ]; then
  echo "error: clone the repository to /opt/baccarat first (the unit's ExecStart points there)" >&2
  exit 1
fi
[ "$(id -u)" = 0 ] || { echo "error: run with sudo" >&2; exit 1; }
. scripts/_venv.sh pi
id baccarat >/dev/null 2>&1 || useradd --system --home-dir /var/lib/baccarat --shell /usr/sbin/nologin baccarat
for group in gpio i2c spi; do getent group "$group" >/dev/null || groupadd --system "$group"; done
usermod -a -G gpio,i2c,spi baccarat
install -d -m 755 /etc/baccarat
[ -f /etc/baccarat/config.toml ] || install -m 644 firmware/default-config.toml /etc/baccarat/config.toml
.venv/bin/baccarat check-config /etc/baccarat/config.toml
install -m 644 firmware/baccarat.service /etc/systemd/system/baccarat.service
systemctl daemon-reload
systemctl enable --now baccarat.service
systemctl --no-pager status baccarat.service || true
echo "installed: logs with  journalctl -u baccarat -f"
