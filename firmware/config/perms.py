"""A warning for a config file that holds a secret while every user on the machine can read it.

The service's config lives in /etc/baccarat/config.toml, installed 0640 root:baccarat by
scripts/install-service.sh. A copy made by hand (or an older install) may be 0644, which shows the
MQTT password to any local user: the daemon says so once, naming the file and its mode, never the
secret.
"""

from __future__ import annotations

import logging
import os
import stat

log = logging.getLogger("baccarat")

_warned: set[str] = set()


def readable_by_others(path: str | os.PathLike[str]) -> bool:
    """True when users outside the file's owner and group may read it (mode o+r)."""
    return bool(os.stat(path).st_mode & stat.S_IROTH)


def warn_if_readable(path: str | os.PathLike[str], has_secret: bool) -> str | None:
    """Log a warning, once per file, when a file holding a secret is readable by every user.

    ``has_secret`` is whether the loaded config holds one (e.g. ``[mqtt] password``). Returns the
    warning's text, or None when there is nothing to say: no secret, a file only its owner and group
    may read, a file that cannot be checked, or a file already warned about.
    """
    if not has_secret:
        return None
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None  # the loader reports a missing or unreadable file itself
    if not mode & stat.S_IROTH:
        return None
    key = os.path.realpath(path)
    if key in _warned:
        return None
    _warned.add(key)
    name = os.fspath(path)
    text = (
        f"{name} holds a password and every user can read it (mode {stat.S_IMODE(mode):04o}); "
        f"make it private: chmod o-r {name} (with sudo if root owns it)"
    )
    log.warning("%s", text)
    return text
