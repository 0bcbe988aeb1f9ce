"""The casing laid out as the sides of the bomb, in mm: the one drawing of every surface.

A landscape sheet, :data:`WIDTH` x :data:`HEIGHT` mm, that prints 1:1 on one A4
or Letter sheet (10 mm margins): on the left the front of the bomb (strikes, the
countdown's place, the solved modules, a QR code to the manual), on the right
four strips, one per side of the case, carrying the serial-number sticker and
the widgets at about their real size, to be cut out and stuck on a box. On a
screen the same drawing scales to fit.

Widgets go to the sides the way a bomb spreads them: the serial number on the
first, then each widget on the side with the least on it so far. A side with
more than fits shrinks its widgets (and wraps them into rows) rather than
losing one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from baccarat_core.timer import clock_text

from .drawing import Circle, Drawing, Group, Line, Polygon, Rect, Text
from .model import Casing

#: The players' manual, which the QR code opens.
MANUAL_URL = "https://ktane.timwi.de/HTML/Baccarat.html"

WIDTH = 256.0
HEIGHT = 180.0
SIDES = 4
FRONT_W = 68.0
SIDE_X = 72.0
SIDE_H = 41.0
SIDE_GAP = 5.0
SIDE_PAD = 3.0
SIDE_LABEL_H = 6.0
#: The tall sheet: the front as a strip above the four sides.
FRONT_STRIP_H = 62.0
TALL_WIDTH = 180.0
TALL_HEIGHT = FRONT_STRIP_H + SIDES * (SIDE_H + SIDE_GAP)
WIDGET_GAP = 4.0

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
        self, x: float, y: float, text: str, size: float, fill: str = INK, anchor: str = "start", bold: bool = False
    ) -> None:
        """Text with its baseline at ``y``."""
        s = self.s
        self.group.add(Text(self.x + x * s, self.y + y * s, text, size * s, fill, anchor, bold))


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


def serial_sticker(serial: str) -> Widget:
    """The white serial-number sticker with its red ``SERIAL #`` band."""

    def draw(pen: Pen) -> None:
        pen.rect(0, 0, 50, 22, STICKER, stroke=CASE_EDGE, width=0.3, radius=1.2)
        pen.rect(0, 0, 50, 6.5, RED, radius=1.2)
        pen.rect(0, 3, 50, 3.5, RED)
        pen.text(25, 5, "SERIAL #", 4, STICKER, "middle", True)
        pen.text(25, 18.5, serial, 10, INK, "middle", True)

    return Widget(50, 22, draw, "serial", "widget serial", {"serial": serial}, f"serial number {serial}")


def indicator(label: str, lit: bool) -> Widget:
    """An indicator: its light (lit or not, also in words for paper) and its label."""

    def draw(pen: Pen) -> None:
        pen.rect(0, 0, 36, 16, "#141414", stroke="#000000", width=0.3, radius=1.5)
        if lit:
            pen.circle(8, 7, 4.6, "#fff3b0")
            pen.circle(8, 7, 3.4, "#fffbe6", "#f2c200", 0.6)
        else:
            pen.circle(8, 7, 3.4, "#3a3a3a", "#555555", 0.6)
        pen.text(8, 14.3, "LIT" if lit else "UNLIT", 2.2, "#f2c200" if lit else "#9a9a9a", "middle", True)
        pen.text(24.5, 10.5, label, 7 if len(label) <= 3 else 21 / len(label), "#f4f4f4", "middle", True)

    state = "lit" if lit else "unlit"
    return Widget(36, 16, draw, None, f"widget indicator {state}", {"label": label}, f"{state} indicator {label}")


def battery_holder(kind: str) -> Widget:
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
        pen.text(39.5, 11.5, kind, 3.4, "#f4f4f4", "end", True)

    name = "a pair of AA batteries" if kind == "AA" else "a D battery"
    return Widget(42, 20, draw, None, "widget battery", {"holder": kind}, f"battery holder: {name}")


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
    pen.text(x + width / 2, 19.2, name, 2.4, "#f4f4f4", "middle", True)
    return width


def _port_width(name: str) -> float:
    widths = {"Parallel": 26.0, "Serial": 13.0, "DVI-D": 22.0, "PS/2": 10.0, "RJ-45": 9.5, "Stereo RCA": 13.6}
    return widths.get(name, max(12.0, 2.0 * len(name) + 4))


def port_plate(ports: tuple[str, ...]) -> Widget:
    """A port plate with its ports drawn (an empty plate is a plate with none)."""
    inner = sum(max(_port_width(p), 2.4 * 0.62 * len(p)) for p in ports) + 3.5 * max(len(ports) - 1, 0)
    width = max(24.0, inner + 10)

    def draw(pen: Pen) -> None:
        pen.rect(0, 0, width, 22, PLATE, stroke="#2d3035", width=0.3, radius=1.5)
        for sx, sy in ((2.2, 2.2), (width - 2.2, 2.2), (2.2, 19.8), (width - 2.2, 19.8)):
            pen.circle(sx, sy, 1.1, "#9aa0a8", "#2d3035", 0.2)
        if not ports:
            pen.text(width / 2, 12.2, "empty plate", 2.6, "#c9ccd1", "middle")
            return
        x = 5.0
        for port in ports:
            label_w = 2.4 * 0.62 * len(port)
            body = _port_width(port)
            slot = max(body, label_w)
            _port(pen, x + (slot - body) / 2, port)
            x += slot + 3.5

    what = ", ".join(ports) if ports else "empty"
    return Widget(width, 22, draw, None, "widget plate", {"ports": ",".join(ports)}, f"port plate: {what}")


# -- the sides -----------------------------------------------------------------------------------


def _sides(casing: Casing) -> list[list[Widget]]:
    """The widgets of each side: the serial sticker first on side 1, then each widget (plates,
    indicators, battery holders) on the side with the least width so far."""
    sides: list[list[Widget]] = [[] for _ in range(SIDES)]
    load = [0.0] * SIDES
    sides[0].append(serial_sticker(casing.serial))
    load[0] = sides[0][0].w
    widgets = [port_plate(p) for p in casing.plates]
    widgets += [indicator(label, lit) for label, lit in casing.indicators]
    widgets += [battery_holder(kind) for kind in casing.batteries]
    for widget in widgets:
        side = min(range(SIDES), key=lambda k: (load[k], k))
        sides[side].append(widget)
        load[side] += widget.w + WIDGET_GAP
    return sides


def _rows(widgets: list[Widget], width: float, height: float) -> tuple[list[list[Widget]], float]:
    """Widgets in rows that fit ``width`` x ``height`` at the largest scale (at most 1)."""
    best: tuple[list[list[Widget]], float] = ([widgets], 0.0)
    for count in range(1, max(len(widgets), 1) + 1):
        total = sum(w.w for w in widgets) + WIDGET_GAP * (len(widgets) - count)
        rows: list[list[Widget]] = [[]]
        used = 0.0
        for widget in widgets:
            if rows[-1] and used + widget.w > total / count + 1e-6 and len(rows) < count:
                rows.append([])
                used = 0.0
            rows[-1].append(widget)
            used += widget.w + WIDGET_GAP
        row_w = max(sum(w.w for w in row) + WIDGET_GAP * (len(row) - 1) for row in rows)
        row_h = sum(max(w.h for w in row) for row in rows if row) + WIDGET_GAP * (len(rows) - 1)
        scale = min(1.0, width / row_w if row_w else 1.0, height / row_h if row_h else 1.0)
        if scale > best[1] + 1e-9:
            best = (rows, scale)
        if scale >= 1.0:
            break
    return best


def _draw_side(number: int, widgets: list[Widget], x0: float, y: float, width: float) -> Group:
    group = Group(id=f"side-{number}", cls="side")
    group.add(Rect(x0, y, width, SIDE_H, CASE, CASE_EDGE, 0.4, 2.0))
    group.add(Text(x0 + 2.5, y + 4.6, f"SIDE {number}", 2.8, MUTED, "start", True))
    area_w, area_h = width - 2 * SIDE_PAD, SIDE_H - SIDE_LABEL_H - SIDE_PAD
    rows, scale = _rows(widgets, area_w, area_h)
    row_hs = [max((w.h for w in row), default=0.0) * scale for row in rows]
    total_h = sum(row_hs) + WIDGET_GAP * scale * (len(rows) - 1)
    top = y + SIDE_LABEL_H + (area_h - total_h) / 2
    for row, row_h in zip(rows, row_hs, strict=True):
        row_w = (sum(w.w for w in row) + WIDGET_GAP * (len(row) - 1)) * scale
        x = x0 + SIDE_PAD + (area_w - row_w) / 2
        for widget in row:
            part = Group(id=widget.id, cls=widget.cls, data=widget.data, title=widget.title)
            widget.draw(Pen(part, x, top + (row_h - widget.h * scale) / 2, scale))
            group.add(part)
            x += (widget.w + WIDGET_GAP) * scale
        top += row_h + WIDGET_GAP * scale
    return group


# -- the front -------------------------------------------------------------------------------------


def _strikes(casing: Casing) -> Group:
    count = str(casing.strikes)
    group = Group(id="strikes", cls="strikes", data={"strikes": count}, title=f"strikes: {count}")
    group.add(Text(FRONT_W / 2, 21, "STRIKES", 3.2, "#bdbdbd", "middle", True))
    slots = 3
    shown = min(casing.strikes, slots)
    for k in range(slots):
        cx = FRONT_W / 2 + (k - 1) * 12
        group.add(Rect(cx - 5, 24, 10, 10, "#2a0d0d", "#5a1d1d", 0.4, 1))
        if k < shown:
            group.add(Line(cx - 3.2, 25.8, cx + 3.2, 32.2, "#ff3b30", 1.4))
            group.add(Line(cx + 3.2, 25.8, cx - 3.2, 32.2, "#ff3b30", 1.4))
    if casing.strikes > slots:
        group.add(Text(FRONT_W / 2 + 24, 32.5, f"{casing.strikes}", 5, "#ff3b30", "middle", True))
    return group


def _timer(casing: Casing) -> Group:
    # The countdown's place: the state document's `timer` (seconds left, rounded up as every
    # display of the prop shows it) when the bomb has one ([bomb] timer_seconds), "--:--" without.
    seconds = casing.timer
    group = Group(
        id="timer",
        cls="timer" + (" none" if seconds is None else "") + (f" {casing.outcome}" if casing.outcome else ""),
        data={"seconds": "" if seconds is None else f"{seconds:g}"},
        title="no timer" if seconds is None else f"time left {clock_text(seconds)}",
    )
    group.add(Rect(6, 37, FRONT_W - 12, 19, "#140404", "#000000", 0.4, 1.2))
    colour = "#ff3b30" if seconds is not None else "#5a1d1d"
    group.add(Text(FRONT_W / 2, 52, clock_text(seconds), 13, colour, "middle", True))
    label = "TIME LEFT" if seconds is not None else "NO TIMER"
    if casing.outcome is not None:
        label = casing.outcome.upper()  # DEFUSED (the time it stopped at) or EXPLODED
    group.add(Text(FRONT_W / 2, 60.5, label, 2.6, "#ff3b30" if casing.outcome == "exploded" else "#bdbdbd", "middle"))
    return group


@lru_cache(maxsize=4)
def qr_modules(url: str = MANUAL_URL) -> tuple[tuple[bool, ...], ...]:
    """The QR code of ``url`` (segno, error correction M) as rows of dark modules, no quiet zone."""
    import segno

    code = segno.make_qr(url, error="m")
    return tuple(tuple(bool(cell) for cell in row) for row in code.matrix)


def qr_group(x: float, y: float, size: float, url: str = MANUAL_URL) -> Group:
    """The QR code of ``url`` in a white square ``size`` mm wide (a 4-module quiet zone inside),
    each run of dark modules in a row one rectangle."""
    modules = qr_modules(url)
    count = len(modules)
    cell = size / (count + 8)
    group = Group(
        id="qr",
        cls="qr",
        data={"url": url, "modules": str(count), "x": f"{x:g}", "y": f"{y:g}", "size": f"{size:g}"},
        title=f"QR code: {url}",
    )
    group.add(Rect(x, y, size, size, "#ffffff"))
    for row, cells in enumerate(modules):
        col = 0
        while col < count:
            if not cells[col]:
                col += 1
                continue
            start = col
            while col < count and cells[col]:
                col += 1
            group.add(Rect(x + (4 + start) * cell, y + (4 + row) * cell, (col - start) * cell, cell, "#000000"))
    return group


def _timer_module(casing: Casing, x: float, y: float) -> Group:
    """The strikes and the timer in their black box, 62 x 49 mm."""
    group = Group(dx=x, dy=y - 15)
    group.add(Rect(3, 15, FRONT_W - 6, 49, "#0f0f0f", "#000000", 0.4, 2.0))
    group.add(_strikes(casing), _timer(casing))
    return group


def _solved(casing: Casing, x: float, y: float, width: float) -> Group:
    """The modules solved on the bomb, in a box ``width`` x 16 mm."""
    count = str(casing.solved)
    group = Group(id="solved", cls="solved", data={"solved": count}, title=f"{count} solved", dx=x, dy=y)
    group.add(Rect(0, 0, width, 16, STICKER, CASE_EDGE, 0.3, 1.2))
    group.add(Text(width / 2, 6, "MODULES SOLVED ON THE BOMB", 2.5, MUTED, "middle", True))
    group.add(Text(width / 2, 13.5, count, 6, INK, "middle", True))
    return group


def _manual(x: float, y: float, size: float) -> Group:
    """The QR code to the manual (``size`` mm) with its address under it."""
    group = Group()
    group.add(qr_group(x, y, size))
    group.add(Text(x + size / 2, y + size + 6, "THE MANUAL", 3.4, INK, "middle", True))
    group.add(Text(x + size / 2, y + size + 10.5, MANUAL_URL.removeprefix("https://"), 2.45, INK, "middle"))
    return group


def _front(casing: Casing) -> Group:
    """The front of the bomb as a column :data:`FRONT_W` mm wide (the wide sheet)."""
    group = Group(id="front", cls="front")
    group.add(Rect(0, 0, FRONT_W, HEIGHT, CASE, CASE_EDGE, 0.4, 2.0))
    group.add(Text(FRONT_W / 2, 7.5, "THE BOMB", 4, INK, "middle", True))
    group.add(Text(FRONT_W / 2, 12, "front: strikes and timer", 2.6, MUTED, "middle"))
    group.add(_timer_module(casing, 0, 15))
    group.add(_solved(casing, 3, 68, FRONT_W - 6))
    group.add(_manual((FRONT_W - 50) / 2, 92, 50))
    notes = ("Printed at 100 %, every widget", "is its real size: cut out the four", "sides and stick them on a box.")
    for k, note in enumerate(notes):
        group.add(Text(FRONT_W / 2, 162 + 4 * k, note, 2.5, MUTED, "middle"))
    return group


def _front_strip(casing: Casing, width: float) -> Group:
    """The front of the bomb as a strip ``width`` x :data:`FRONT_STRIP_H` mm (the tall sheet)."""
    group = Group(id="front", cls="front")
    group.add(Rect(0, 0, width, FRONT_STRIP_H, CASE, CASE_EDGE, 0.4, 2.0))
    group.add(_timer_module(casing, 0, 3))
    middle = FRONT_W + (width - FRONT_W - 46) / 2
    group.add(Text(middle, 10, "THE BOMB", 4, INK, "middle", True))
    group.add(Text(middle, 14.5, "front: strikes and timer", 2.6, MUTED, "middle"))
    group.add(_solved(casing, middle - 25, 30, 50))
    group.add(_manual(width - 47, 3, 41))
    return group


#: The two sheets: wide (the page, print) and tall (beside the panel on /play), in mm.
SHAPES: dict[str, tuple[float, float]] = {"wide": (WIDTH, HEIGHT), "tall": (TALL_WIDTH, TALL_HEIGHT)}


def draw_casing(casing: Casing, shape: str = "wide") -> Drawing:
    """The casing as a drawing: ``wide`` (:data:`WIDTH` x :data:`HEIGHT` mm: the front as a column
    beside the four sides; the one that prints) or ``tall`` (the front as a strip above them)."""
    width, height = SHAPES[shape]
    drawing = Drawing(width, height, title=f"Bomb casing, serial number {casing.serial}")
    if shape == "wide":
        drawing.root.add(_front(casing))
        x, top, side_w = SIDE_X, 0.0, WIDTH - SIDE_X
    else:
        drawing.root.add(_front_strip(casing, width))
        x, top, side_w = 0.0, FRONT_STRIP_H + SIDE_GAP, width
    for number, widgets in enumerate(_sides(casing), start=1):
        drawing.root.add(_draw_side(number, widgets, x, top + (number - 1) * (SIDE_H + SIDE_GAP), side_w))
    return drawing


def casing_svg(casing: Casing, shape: str = "wide") -> str:
    """The casing as SVG: what the pages show and ``baccarat casing --out FILE.svg`` writes."""
    from .drawing import to_svg

    return to_svg(draw_casing(casing, shape))
