"""The bomb casing for the players: serial number, port plates, indicators, batteries, strikes.

One drawing for every surface: :func:`~.layout.draw_casing` lays the casing out
(in mm) as a :class:`~.drawing.Drawing` of plain shapes, which
:mod:`.drawing` writes as SVG (the ``/casing`` and ``/play`` pages, and
``baccarat casing --out FILE.svg``), PNG (Pillow) or PDF (fpdf2). What the
drawing may show is the :class:`~.model.Casing`: only what a player can see on
a real bomb.
"""

from .model import Casing, plates_for_ports

__all__ = ["Casing", "plates_for_ports"]
