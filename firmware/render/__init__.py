"""Pure render functions: a view and a display size in, a PIL image out.

Nothing here sends a frame; the daemon decides when a picture goes to a device.
"""

from .bets import render_bets
from .placard import render_placard
from .table import render_table
from .views import BetsView, TableView

__all__ = ["BetsView", "TableView", "render_bets", "render_placard", "render_table"]
