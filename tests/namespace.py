"""A bash script run as root in a private mount namespace of its own (``unshare --mount``), for tests
that install for real and must leave the machine as it was: the script mounts its overlays there, and
they vanish with it. It writes ``$work/skip`` (``exit 0``) when the kernel cannot mount an overlay."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

#: The start of such a script: nothing it makes reaches the machine. /etc and /opt are overlays whose
#: changes go to ``$work`` (``$1``), and /run, /var/log (useradd's logs) and /usr/local/bin are empty tmpfs.
SYSTEM_IN_OVERLAYS = r"""
set -uo pipefail
work=$1
for dir in etc opt; do
  mkdir -p "$work/$dir-upper" "$work/$dir-work"
  mount -t overlay overlay -o "lowerdir=/$dir,upperdir=$work/$dir-upper,workdir=$work/$dir-work" "/$dir" ||
    { echo "no overlayfs" >"$work/skip"; exit 0; }
done
for dir in /run /var/log /usr/local/bin; do mount -t tmpfs tmpfs "$dir"; done
"""


def run_private(
    script: str, work: Path, *args: str, timeout: float = 600, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """``script`` with ``$1`` the test's folder and the rest ``args`` (``env``: more variables); skips
    the test where no private mount namespace or overlay can be made."""
    tool = shutil.which("unshare")
    assert tool, "unshare is missing: scripts/test.sh installs util-linux"
    run = subprocess.run(
        [tool, "--mount", "--propagation", "private", "bash", "-c", script, "_", str(work), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | (env or {}),
    )
    if (work / "skip").exists():
        pytest.skip("this kernel cannot mount an overlay over /etc and /opt")
    if "cannot change root filesystem propagation" in run.stderr:
        pytest.skip("/ is not a mount point here (a chroot), so no private mount namespace can be made")
    return run
