"""The Pi install said once (issue 32, item 6): your checkout in ``~/baccarat``, the installed prop in
``/opt/baccarat``. ``install-service.sh`` run from the checkout copies it to /opt/baccarat (as an
update copies a release) and installs from there; run again, it says the prop is installed already.

The install runs for real as root in a mount namespace of its own whose /etc and /opt are overlays
(users, groups and files stay in tmp_path) and whose /run, /var/log and /usr/local/bin are empty
tmpfs; only systemctl is a stand-in that logs its calls.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from firmware.updates.build import source_files
from tests.namespace import SYSTEM_IN_OVERLAYS, run_private

ROOT = Path(__file__).resolve().parent.parent

FROM_A_CHECKOUT = (
    SYSTEM_IN_OVERLAYS
    + r"""
repo=$2
rm -rf /opt/baccarat
mkdir -p "$work/home/baccarat/.venv" "$work/bin"
tar -C "$repo" --exclude=./.venv --exclude-vcs --exclude=__pycache__ --exclude='*.egg-info' \
  --exclude=./.hypothesis --exclude=./.ruff_cache -cf - . | tar -C "$work/home/baccarat" -xf -
echo "the checkout's own venv" >"$work/home/baccarat/.venv/marker"
printf '#!/bin/sh\necho "systemctl $*" >>"%s/systemctl.log"\n' "$work" >"$work/bin/systemctl"
chmod +x "$work/bin/systemctl"
export PATH="$work/bin:/usr/sbin:/usr/bin:/sbin:/bin"
cd "$work/home/baccarat"
bash scripts/install-service.sh >"$work/install.log" 2>&1
echo "install=$?" >>"$work/results"
ls -A /opt/baccarat >"$work/opt.txt"
readlink /opt/baccarat/current >>"$work/results.current"
[ -x /opt/baccarat/.venv/bin/baccarat ] && echo "venv=yes" >>"$work/results"
[ -e /opt/baccarat/.venv/marker ] && echo "copied_venv=yes" >>"$work/results"
readlink /usr/local/bin/baccarat >"$work/command.txt"
[ -e /etc/systemd/system/baccarat.service.d/50-services.conf ] && echo "dropin_first=yes" >>"$work/results"
cp /etc/baccarat/config.toml "$work/plain.toml"
printf '\n[clue_control]\ncontroller = "127.0.0.1"\n' >>/etc/baccarat/config.toml
bash scripts/install-service.sh >"$work/again.log" 2>&1
echo "again=$?" >>"$work/results"
cat /etc/systemd/system/baccarat.service.d/50-services.conf >"$work/dropin.conf" 2>/dev/null || true
cp "$work/plain.toml" /etc/baccarat/config.toml
bash /opt/baccarat/scripts/install-service.sh >"$work/third.log" 2>&1
echo "third=$?" >>"$work/results"
[ -e /etc/systemd/system/baccarat.service.d/50-services.conf ] && echo "dropin_third=yes" >>"$work/results"
"""
)


def test_the_release_layout_at_opt_baccarat_is_never_copied_as_source(tmp_path):
    """A checkout at /opt/baccarat holds releases/, current and previous, which git does not ignore."""
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    subprocess.run([*git, "add", "pyproject.toml"], check=True)
    subprocess.run([*git, "commit", "-qm", "a release"], check=True)
    (tmp_path / "notes.txt").write_text("not committed, not ignored: copied\n")
    (tmp_path / "releases" / "0.1.0+gabcdef0" / ".venv").mkdir(parents=True)
    (tmp_path / "releases" / "0.1.0+gabcdef0" / "pyproject.toml").write_text("[project]\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "current").symlink_to("releases/0.1.0+gabcdef0")
    (tmp_path / "previous").symlink_to(".")
    assert source_files(tmp_path) == [Path("notes.txt"), Path("pyproject.toml")]


@pytest.mark.install  # the install for real: a venv, pip, the unit (40 s)
@pytest.mark.timeout(900)
@pytest.mark.skipif(
    os.geteuid() != 0, reason="needs root: it makes users and groups (in overlays, in a mount namespace)"
)
def test_install_service_from_the_checkout_copies_it_to_opt_baccarat(tmp_path):
    run = run_private(FROM_A_CHECKOUT, tmp_path, str(ROOT), timeout=900)
    results = dict(line.split("=", 1) for line in (tmp_path / "results").read_text().splitlines())
    log = (tmp_path / "install.log").read_text()
    assert results.get("install") == "0", (run.stderr, log[-3000:])
    checkout = tmp_path / "home" / "baccarat"
    assert log.splitlines()[0] == (
        f"copied {checkout} to /opt/baccarat, where the service runs it; keep working in {checkout}: "
        "git pull, then sudo bash scripts/update.sh"
    )
    installed = set((tmp_path / "opt.txt").read_text().split())
    assert {"scripts", "firmware", "pyproject.toml", ".venv", "current"} <= installed
    assert results.get("venv") == "yes" and "copied_venv" not in results
    assert (tmp_path / "results.current").read_text().strip() == "."
    assert (tmp_path / "command.txt").read_text().strip() == "/opt/baccarat/current/.venv/bin/baccarat"
    again = (tmp_path / "again.log").read_text()
    assert results.get("again") == "0", again[-3000:]
    assert again.splitlines()[0].startswith("note: the prop is installed in /opt/baccarat already")
    # The room services' drop-in: none for the default config; Clue Control on its port 502 asks for
    # exactly CAP_NET_BIND_SERVICE; gone again once the config no longer asks.
    assert "dropin_first" not in results
    dropin = (tmp_path / "dropin.conf").read_text().splitlines()
    assert dropin[1:] == [
        "[Service]",
        "CapabilityBoundingSet=CAP_NET_BIND_SERVICE",
        "AmbientCapabilities=CAP_NET_BIND_SERVICE",
    ], again[-3000:]
    assert "/etc/systemd/system/baccarat.service.d/50-services.conf" in again
    third = (tmp_path / "third.log").read_text()
    assert results.get("third") == "0", third[-3000:]
    assert "dropin_third" not in results and "removed /etc/systemd/system/baccarat.service.d/50-services.conf" in third
