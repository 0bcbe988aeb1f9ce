"""Pure render functions: a view and a display size in, a PIL image out.

Nothing here sends a frame; the daemon decides when a picture goes to a device.
"""

from typing import Any

from .bets import render_bets
from .placard import render_placard
from .table import render_table
from .views import BetsView, CasingView, ExplodedView, TableView

__all__ = [
    "BetsView",
    "CasingView",
    "ExplodedView",
    "TableView",
    "render_bets",
    "render_casing",
    "render_exploded",
    "render_placard",
    "render_table",
]


def __getattr__(name: str) -> Any:
    """The casing's and the explosion's renderers, loaded when first asked for (a prop without a
    casing display never draws one, and a module explodes only at a bomb's end)."""
    if name == "render_casing":
        from .casing import render_casing

        return render_casing
    if name == "render_exploded":
        from .exploded import render_exploded

        return render_exploded
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
