"""Pure render functions: a view and a display size in, a PIL image out.

Nothing here sends a frame; the daemon decides when a picture goes to a device.
"""

from .bets import render_bets
from .casing import render_casing
from .exploded import render_exploded
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
