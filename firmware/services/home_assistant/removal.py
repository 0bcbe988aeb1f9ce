"""Home Assistant's removal form for the entities an earlier discovery document had and the new one lacks."""

from __future__ import annotations

from typing import Any

from baccarat_core import strict
from baccarat_core.patterns import Pattern

_PLATFORM = Pattern(r"[a-z_]{1,40}")


def stale_components(previous: bytes | str, current: dict[str, Any], prop_id: str) -> dict[str, dict[str, str]]:
    """Home Assistant's removal form (``{"p": platform}``) for each component of a ``previous``
    discovery document that ``current`` (the new one's ``cmps``) no longer has.

    Only this prop's own components count (their IDs start with ``<prop_id>_``); components
    already in the removal form give nothing. ``previous`` is read strictly (size, depth:
    :func:`baccarat_core.strict.loads`): one that is not a discovery document raises
    :class:`~baccarat_core.BaccaratError`.
    """
    data = strict.loads(previous, "discovery document")
    components = data.get("cmps", data.get("components")) if isinstance(data, dict) else None
    if not isinstance(components, dict):
        raise strict.InputError("discovery document has no components (cmps)")
    stale = {}
    for key, config in components.items():
        if key in current or not key.startswith(f"{prop_id}_") or not isinstance(config, dict):
            continue
        platform = config.get("p", config.get("platform"))
        if isinstance(platform, str) and _PLATFORM.fullmatch(platform) and set(config) - {"p", "platform"}:
            stale[key] = {"p": platform}
    return stale
