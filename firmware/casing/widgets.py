"""The casing's widgets, each drawn at its own origin and natural size in mm: the serial-number
sticker, an indicator, a battery holder, a port plate (:mod:`.layout` puts them on the sides).

Their words (``SERIAL #``, ``LIT``, a port plate's ``empty plate``, the titles a screen reader
says) are in the catalog's language given as ``t``; the labels the manual reads (the serial
number, the indicators' labels, the ports' names, AA and D) stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from gettext import NullTranslations

from baccarat_core.events import ENGLISH

from .drawing import Circle, Group, Line, Polygon, Rect, Text

CASE = "#d8d2c4"
CASE_EDGE = "#8d8676"
INK = "#1b1b1b"
RED = "#d0342c"
MUTED = "#6b665c"
STICKER = "#fbfaf6"
PLATE = "#5d636b"
HOLDER = "#2b2b2b"


class Pen:
    """Draws at an offset and a scale into a group, so a widget is drawn once at its own origin."""

    def __init__(self, group: Group, x: float = 0.0, y: float = 0.0, scale: float = 1.0) -> None:
        self.group, self.x, self.y, self.s = group, x, y, scale

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        fill: str | None,
        *,
        stroke: str | None = None,
        width: float = 0.3,
        radius: float = 0.0,
    ) -> None:
        """A rectangle."""
        s = self.s
        self.group.add(Rect(self.x + x * s, self.y + y * s, w * s, h * s, fill, stroke, width * s, radius * s))

    def circle(
        self, cx: float, cy: float, r: float, fill: str | None, stroke: str | None = None, width: float = 0.3
    ) -> None:
        """A circle."""
        s = self.s
        self.group.add(Circle(self.x + cx * s, self.y + cy * s, r * s, fill, stroke, width * s))

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str, width: float = 0.3) -> None:
        """A line."""
        s = self.s
        self.group.add(Line(self.x + x1 * s, self.y + y1 * s, self.x + x2 * s, self.y + y2 * s, stroke, width * s))

    def polygon(self, points: list[tuple[float, float]], fill: str | None, stroke: str | None = None) -> None:
        """A closed polygon."""
        s = self.s
        self.group.add(Polygon(tuple((self.x + x * s, self.y + y * s) for x, y in points), fill, stroke, 0.3 * s))

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float,
        fill: str = INK,
        anchor: str = "start",
        bold: bool = False,
        keep: bool = False,
    ) -> None:
        """Text with its baseline at ``y`` (``keep``: the bomb's data, never translated)."""
        s = self.s
        self.group.add(Text(self.x + x * s, self.y + y * s, text, size * s, fill, anchor, bold, keep))


# -- the widgets, each at its own origin and natural size (mm) ----------------------------------


@dataclass
class Widget:
    """One thing on a side of the case: its natural size, and how to draw it."""

    w: float
    h: float
    draw: Callable[[Pen], None]
    id: str | None
    cls: str
    data: dict[str, str]
    title: str


#: Each printable ASCII character's advance in DejaVu Sans Bold (the widest of the fonts the
#: writers use: :data:`.drawing.FONT_FAMILY`), in hundredths of the font size, from " " to "~".
_ADVANCES = (
    "35 46 53 84 70 101 88 31 46 46 53 84 38 42 38 37 70 70 70 70 70 70 70 70 70 70 40 40 84 84 84 59 100 78 77 "
    "74 84 69 69 83 84 38 38 78 64 100 84 86 74 86 78 73 69 82 78 111 78 73 73 46 37 46 84 50 50 68 72 60 72 68 "
    "44 72 72 35 35 67 35 105 72 69 72 72 50 60 48 72 66 93 65 66 59 72 37 72 84"
)
ADVANCE = {chr(32 + n): int(width) / 100 for n, width in enumerate(_ADVANCES.split())}


def text_width(text: str, size: float) -> float:
    """How wide ``text`` is in bold at ``size`` (mm): an accented letter as its base letter, any
    other character as wide as the widest capital (a translation's letters are never narrower)."""
    from unicodedata import normalize

    width = 0.0
    for char in text:
        base = normalize("NFD", char)[:1]
        width += ADVANCE.get(char, ADVANCE.get(base, 1.2))
    return width * size


def fitted(text: str, size: float, width: float) -> float:
    """``size``, or smaller so that ``text`` in bold fits ``width`` mm (a translation may be longer)."""
    return min(size, width / max(text_width(text, 1.0), 0.01))


def serial_sticker(serial: str, t: NullTranslations = ENGLISH) -> Widget:
    """The white serial-number sticker with its red ``SERIAL #`` band."""
    band = t.gettext("SERIAL #")

    def draw(pen: Pen) -> None:
        pen.rect(0, 0, 50, 22, STICKER, stroke=CASE_EDGE, width=0.3, radius=1.2)
        pen.rect(0, 0, 50, 6.5, RED, radius=1.2)
        pen.rect(0, 3, 50, 3.5, RED)
        pen.text(25, 5, band, fitted(band, 4, 46), STICKER, "middle", True)
        pen.text(25, 18.5, serial, 10, INK, "middle", True, keep=True)

    title = t.gettext("serial number {serial}").format(serial=serial)
    return Widget(50, 22, draw, "serial", "widget serial", {"serial": serial}, title)


def indicator(label: str, lit: bool, t: NullTranslations = ENGLISH) -> Widget:
    """An indicator: its light (lit or not, also in words for paper) and its label."""
    said = t.gettext("LIT") if lit else t.gettext("UNLIT")

    def draw(pen: Pen) -> None:
        pen.rect(0, 0, 36, 16, "#141414", stroke="#000000", width=0.3, radius=1.5)
        if lit:
            pen.circle(8, 7, 4.6, "#fff3b0")
            pen.circle(8, 7, 3.4, "#fffbe6", "#f2c200", 0.6)
        else:
            pen.circle(8, 7, 3.4, "#3a3a3a", "#555555", 0.6)
        pen.text(8, 14.3, said, fitted(said, 2.2, 14), "#f2c200" if lit else "#9a9a9a", "middle", True)
        pen.text(24.5, 10.5, label, 7 if len(label) <= 3 else 21 / len(label), "#f4f4f4", "middle", True, keep=True)

    state = "lit" if lit else "unlit"
    title = t.gettext("lit indicator {label}") if lit else t.gettext("unlit indicator {label}")
    return Widget(36, 16, draw, None, f"widget indicator {state}", {"label": label}, title.format(label=label))


def battery_holder(kind: str, t: NullTranslations = ENGLISH) -> Widget:
    """A battery holder: a pair of AA cells, or one D cell."""

    def cell(pen: Pen, x: float, y: float, w: float, h: float) -> None:
        pen.rect(x, y, w, h, "#c9a227", stroke="#6e5a14", width=0.3, radius=h / 2.6)
        pen.rect(x + w * 0.62, y, w * 0.38, h, "#222222", radius=h / 2.6)
        pen.rect(x + w, y + h * 0.3, 1.2, h * 0.4, "#b0b0b0")
        pen.text(x + w * 0.3, y + h * 0.68, "+", h * 0.6, "#3d320c", "middle", True)

    def draw(pen: Pen) -> None:
        pen.rect(0, 0, 42, 20, HOLDER, stroke="#000000", width=0.3, radius=1.5)
        if kind == "AA":
            cell(pen, 4, 2.5, 30, 6.2)
            cell(pen, 4, 10.5, 30, 6.2)
        else:
            cell(pen, 4, 2.5, 30, 14.5)
        pen.text(39.5, 11.5, kind, 3.4, "#f4f4f4", "end", True, keep=True)

    name = (
        t.gettext("battery holder: a pair of AA batteries")
        if kind == "AA"
        else t.gettext("battery holder: a D battery")
    )
    return Widget(42, 20, draw, None, "widget battery", {"holder": kind}, name)


def _pins(pen: Pen, x: float, y: float, count: int, pitch: float, r: float = 0.35, fill: str = "#1b1b1b") -> None:
    for k in range(count):
        pen.circle(x + k * pitch, y, r, fill)


def _dsub(pen: Pen, x: float, w: float, colour: str, top: int, bottom: int) -> None:
    """A D-sub connector (Parallel: 25 pins, Serial: 9)."""
    pen.polygon([(x, 7), (x + w, 7), (x + w - 2, 14), (x + 2, 14)], colour, "#111111")
    pitch = (w - 5) / max(top - 1, 1)
    _pins(pen, x + 2.5, 9.3, top, pitch)
    _pins(pen, x + 2.5 + pitch / 2, 11.8, bottom, pitch)


def _port(pen: Pen, x: float, name: str) -> float:
    """Draw port ``name`` at ``x`` on a plate; returns its width."""
    if name == "Parallel":
        _dsub(pen, x, 26, "#c2457f", 13, 12)
        width = 26.0
    elif name == "Serial":
        _dsub(pen, x, 13, "#3f8fc0", 5, 4)
        width = 13.0
    elif name == "DVI-D":
        pen.rect(x, 7, 22, 7, "#f1f1f1", stroke="#111111", width=0.3, radius=1)
        for row in range(3):
            _pins(pen, x + 2, 8.7 + row * 1.8, 8, 1.7, 0.3)
        pen.rect(x + 17.2, 9.3, 3.2, 2.4, "#1b1b1b")
        width = 22.0
    elif name == "PS/2":
        pen.circle(x + 5, 10.5, 4.4, "#7d4fb3", "#111111")
        pen.circle(x + 5, 10.5, 3.2, "#2a2a2a")
        for dx, dy in ((-1.6, -0.8), (1.6, -0.8), (-2, 1), (2, 1), (-0.8, 2.1), (0.8, 2.1)):
            pen.circle(x + 5 + dx, 10.5 + dy, 0.35, "#d9d9d9")
        pen.rect(x + 4.2, 7.8, 1.6, 1.2, "#7d4fb3")
        width = 10.0
    elif name == "RJ-45":
        pen.rect(x, 6.5, 9.5, 8.5, "#cfcfcf", stroke="#111111", width=0.3)
        pen.rect(x + 1.2, 7.7, 7.1, 5.2, "#1b1b1b")
        pen.rect(x + 3.3, 12.9, 2.9, 1.5, "#1b1b1b")
        width = 9.5
    elif name == "Stereo RCA":
        for dx, colour in ((3.3, "#d23a3a"), (10.3, "#f1f1f1")):
            pen.circle(x + dx, 10.5, 3.2, colour, "#111111")
            pen.circle(x + dx, 10.5, 1.1, "#1b1b1b")
        width = 13.6
    else:
        width = max(12.0, 2.0 * len(name) + 4)
        pen.rect(x, 7, width, 7, "#a9adb3", stroke="#111111", width=0.3, radius=1)
    pen.text(x + width / 2, 19.2, name, 2.4, "#f4f4f4", "middle", True, keep=True)
    return width


def _port_width(name: str) -> float:
    widths = {"Parallel": 26.0, "Serial": 13.0, "DVI-D": 22.0, "PS/2": 10.0, "RJ-45": 9.5, "Stereo RCA": 13.6}
    return widths.get(name, max(12.0, 2.0 * len(name) + 4))


def port_plate(ports: tuple[str, ...], t: NullTranslations = ENGLISH) -> Widget:
    """A port plate with its ports drawn (an empty plate is a plate with none)."""
    empty = t.gettext("empty plate")
    inner = sum(max(_port_width(p), 2.4 * 0.62 * len(p)) for p in ports) + 3.5 * max(len(ports) - 1, 0)
    width = max(24.0, inner + 10)

    def draw(pen: Pen) -> None:
        pen.rect(0, 0, width, 22, PLATE, stroke="#2d3035", width=0.3, radius=1.5)
        for sx, sy in ((2.2, 2.2), (width - 2.2, 2.2), (2.2, 19.8), (width - 2.2, 19.8)):
            pen.circle(sx, sy, 1.1, "#9aa0a8", "#2d3035", 0.2)
        if not ports:
            pen.text(width / 2, 12.2, empty, fitted(empty, 2.6, width - 6), "#c9ccd1", "middle")
            return
        x = 5.0
        for port in ports:
            label_w = 2.4 * 0.62 * len(port)
            body = _port_width(port)
            slot = max(body, label_w)
            _port(pen, x + (slot - body) / 2, port)
            x += slot + 3.5

    title = t.gettext("port plate: {ports}").format(ports=", ".join(ports)) if ports else t.gettext("port plate: empty")
    return Widget(width, 22, draw, None, "widget plate", {"ports": ",".join(ports)}, title)
