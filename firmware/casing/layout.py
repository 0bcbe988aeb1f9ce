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

import textwrap
from functools import lru_cache
from gettext import NullTranslations
from urllib.parse import quote, unquote

from baccarat_core.events import ENGLISH
from baccarat_core.timer import clock_text

from ..i18n import N_, SOURCE, translations
from .drawing import Circle, Drawing, Group, Line, Rect, Text
from .model import Casing
from .widgets import (
    CASE,
    CASE_EDGE,
    INK,
    MUTED,
    STICKER,
    Pen,
    Widget,
    battery_holder,
    fitted,
    indicator,
    port_plate,
    serial_sticker,
)

#: The players' manual, which the QR code opens: the English one on the public manual site.
# TRANSLATORS: the address of the Baccarat manual in your language on ktane.timwi.de, if the site
# has one (a file "HTML/Baccarat translated (<Language> — <name>) (<translator>).html"); else
# leave this English address as it is, and the casing says the manual is in English.
MANUAL_URL = N_("https://ktane.timwi.de/HTML/Baccarat.html")
#: Where a translated manual's address must lead (anything else is refused for the English one).
MANUAL_SITE = "https://ktane.timwi.de/"

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

# -- the sides -----------------------------------------------------------------------------------


def _sides(casing: Casing, t: NullTranslations = ENGLISH) -> list[list[Widget]]:
    """The widgets of each side: the serial sticker first on side 1, then each widget (plates,
    indicators, battery holders) on the side with the least width so far."""
    sides: list[list[Widget]] = [[] for _ in range(SIDES)]
    load = [0.0] * SIDES
    sides[0].append(serial_sticker(casing.serial, t))
    load[0] = sides[0][0].w
    widgets = [port_plate(p, t) for p in casing.plates]
    widgets += [indicator(label, lit, t) for label, lit in casing.indicators]
    widgets += [battery_holder(kind, t) for kind in casing.batteries]
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


def _draw_side(
    number: int, widgets: list[Widget], x0: float, y: float, width: float, t: NullTranslations = ENGLISH
) -> Group:
    group = Group(id=f"side-{number}", cls="side")
    group.add(Rect(x0, y, width, SIDE_H, CASE, CASE_EDGE, 0.4, 2.0))
    group.add(Text(x0 + 2.5, y + 4.6, t.gettext("SIDE {number}").format(number=number), 2.8, MUTED, "start", True))
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


def _strikes(casing: Casing, t: NullTranslations = ENGLISH) -> Group:
    count = str(casing.strikes)
    title = t.gettext("strikes: {count}").format(count=count)
    group = Group(id="strikes", cls="strikes", data={"strikes": count}, title=title)
    label = t.gettext("STRIKES")
    group.add(Text(FRONT_W / 2, 21, label, fitted(label, 3.2, FRONT_W - 10), "#bdbdbd", "middle", True))
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


def _timer(casing: Casing, t: NullTranslations = ENGLISH) -> Group:
    # The countdown's place: the state document's `timer` (seconds left, rounded up as every
    # display of the prop shows it) when the bomb has one ([bomb] timer_seconds), "--:--" without.
    seconds = casing.timer
    group = Group(
        id="timer",
        cls="timer" + (" none" if seconds is None else "") + (f" {casing.outcome}" if casing.outcome else ""),
        data={"seconds": "" if seconds is None else f"{seconds:g}"},
        title=t.gettext("no timer")
        if seconds is None
        else t.gettext("time left {left}").format(left=clock_text(seconds)),
    )
    group.add(Rect(6, 37, FRONT_W - 12, 19, "#140404", "#000000", 0.4, 1.2))
    colour = "#ff3b30" if seconds is not None else "#5a1d1d"
    group.add(Text(FRONT_W / 2, 52, clock_text(seconds), 13, colour, "middle", True))
    label = t.gettext("TIME LEFT") if seconds is not None else t.gettext("NO TIMER")
    if casing.outcome is not None:  # DEFUSED (the time it stopped at) or EXPLODED
        label = t.gettext("DEFUSED") if casing.outcome == "defused" else t.gettext("EXPLODED")
    colour = "#ff3b30" if casing.outcome == "exploded" else "#bdbdbd"
    group.add(Text(FRONT_W / 2, 60.5, label, fitted(label, 2.6, FRONT_W - 14), colour, "middle"))
    return group


@lru_cache(maxsize=4)
def qr_modules(url: str = MANUAL_URL) -> tuple[tuple[bool, ...], ...]:
    """The QR code of ``url`` (segno, error correction M) as rows of dark modules, no quiet zone."""
    import segno

    code = segno.make_qr(url, error="m")
    return tuple(tuple(bool(cell) for cell in row) for row in code.matrix)


def qr_group(x: float, y: float, size: float, url: str = MANUAL_URL, t: NullTranslations = ENGLISH) -> Group:
    """The QR code of ``url`` in a white square ``size`` mm wide (a 4-module quiet zone inside),
    each run of dark modules in a row one rectangle."""
    modules = qr_modules(url)
    count = len(modules)
    cell = size / (count + 8)
    group = Group(
        id="qr",
        cls="qr",
        data={"url": url, "modules": str(count), "x": f"{x:g}", "y": f"{y:g}", "size": f"{size:g}"},
        title=t.gettext("QR code: {url}").format(url=url),
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


def _timer_module(casing: Casing, x: float, y: float, t: NullTranslations = ENGLISH) -> Group:
    """The strikes and the timer in their black box, 62 x 49 mm."""
    group = Group(dx=x, dy=y - 15)
    group.add(Rect(3, 15, FRONT_W - 6, 49, "#0f0f0f", "#000000", 0.4, 2.0))
    group.add(_strikes(casing, t), _timer(casing, t))
    return group


def _solved(casing: Casing, x: float, y: float, width: float, t: NullTranslations = ENGLISH) -> Group:
    """The modules solved on the bomb, in a box ``width`` x 16 mm; in an OBUS bomb (``casing.bomb``)
    ``width`` x :data:`BOMB_BOX_H` mm, its puzzle modules solved of all and a mark for each."""
    if casing.bomb is not None:
        return _bomb_solved(casing.bomb, x, y, width, t)
    count = str(casing.solved)
    title = t.ngettext("{n} module solved", "{n} modules solved", casing.solved).format(n=count)
    group = Group(id="solved", cls="solved", data={"solved": count}, title=title, dx=x, dy=y)
    group.add(Rect(0, 0, width, 16, STICKER, CASE_EDGE, 0.3, 1.2))
    label = t.gettext("MODULES SOLVED ON THE BOMB")
    group.add(Text(width / 2, 6, label, fitted(label, 2.5, width - 3), MUTED, "middle", True))
    group.add(Text(width / 2, 13.5, count, 6, INK, "middle", True))
    return group


#: The solved box's height in an OBUS bomb: the count, then a row of marks.
BOMB_BOX_H = 22.0
#: A solved module's mark (a lit green LED, as a KTANE module's), an unsolved one's (unlit).
MARK_SOLVED, MARK_UNSOLVED = "#22b14c", "#3a3a3a"


def bomb_marks_at(count: int, width: float) -> list[tuple[float, float, float]]:
    """The ``(cx, cy, r)`` of ``count`` marks in a solved box ``width`` mm wide (mm, in the box)."""
    pitch = min(5.0, (width - 6) / max(count, 1))
    r = min(1.6, pitch * 0.38)
    left = width / 2 - pitch * (count - 1) / 2
    return [(left + k * pitch, 17.5, r) for k in range(count)]


def _bomb_solved(marks: tuple[bool, ...], x: float, y: float, width: float, t: NullTranslations) -> Group:
    solved = sum(marks)
    title = t.ngettext("{n} module solved", "{n} modules solved", solved).format(n=solved)
    data = {"solved": str(solved), "modules": str(len(marks)), "marks": "".join("1" if m else "0" for m in marks)}
    group = Group(id="solved", cls="solved bomb", data=data, title=title, dx=x, dy=y)
    group.add(Rect(0, 0, width, BOMB_BOX_H, STICKER, CASE_EDGE, 0.3, 1.2))
    label = t.gettext("MODULES SOLVED ON THE BOMB")
    group.add(Text(width / 2, 5.5, label, fitted(label, 2.5, width - 3), MUTED, "middle", True))
    group.add(Text(width / 2, 12.5, f"{solved} / {len(marks)}", 5.5, INK, "middle", True))
    for (cx, cy, r), lit in zip(bomb_marks_at(len(marks), width), marks, strict=True):
        group.add(Circle(cx, cy, r, MARK_SOLVED if lit else STICKER, INK if lit else MARK_UNSOLVED, 0.3))
    return group


def manual_url(t: NullTranslations = ENGLISH) -> str:
    """The manual in the catalog's language where the public manual site has one (the catalog's
    translation of :data:`MANUAL_URL`, as the site's file name or its percent-encoded address),
    else the English one.

    >>> manual_url()
    'https://ktane.timwi.de/HTML/Baccarat.html'
    """
    url = t.gettext(MANUAL_URL).strip()
    if not url.startswith(MANUAL_SITE) or not url.isprintable() or "\\" in url:
        return MANUAL_URL
    return quote(url, safe=":/%()'!*,;=+$&@~-._")


def _manual(
    x: float, y: float, size: float, t: NullTranslations = ENGLISH, english: bool = False, room: float = 0.0
) -> Group:
    """The QR code to the manual (``size`` mm) with its address under it, each line at most
    ``room`` mm wide (default ``size`` + 14); ``english``: the casing is in another language and
    the manual is not, which the label says."""
    url = manual_url(t)
    room = room or size + 14
    group = Group()
    group.add(qr_group(x, y, size, url, t))
    label = t.gettext("THE MANUAL (IN ENGLISH)") if english and url == MANUAL_URL else t.gettext("THE MANUAL")
    group.add(Text(x + size / 2, y + size + 6, label, fitted(label, 3.4, room), INK, "middle", True))
    address = unquote(url).removeprefix("https://")
    group.add(Text(x + size / 2, y + size + 10.5, address, fitted(address, 2.45, room), INK, "middle", keep=True))
    return group


def _notes(t: NullTranslations) -> list[str]:
    """How to print and use the sheet, in lines that fit the front's column."""
    said = t.gettext("Printed at 100 %, every widget is its real size: cut out the four sides and stick them on a box.")
    return textwrap.wrap(said, 34)


def _front(casing: Casing, t: NullTranslations = ENGLISH, english: bool = False) -> Group:
    """The front of the bomb as a column :data:`FRONT_W` mm wide (the wide sheet)."""
    group = Group(id="front", cls="front")
    group.add(Rect(0, 0, FRONT_W, HEIGHT, CASE, CASE_EDGE, 0.4, 2.0))
    title, under = t.gettext("THE BOMB"), t.gettext("front: strikes and timer")
    group.add(Text(FRONT_W / 2, 7.5, title, fitted(title, 4, FRONT_W - 4), INK, "middle", True))
    group.add(Text(FRONT_W / 2, 12, under, fitted(under, 2.6, FRONT_W - 4), MUTED, "middle"))
    group.add(_timer_module(casing, 0, 15, t))
    group.add(_solved(casing, 3, 68, FRONT_W - 6, t))
    group.add(_manual((FRONT_W - 50) / 2, 92, 50, t, english))
    notes = _notes(t)
    lines = Group(cls="notes", data={"lines": str(len(notes))})  # one message, wrapped
    for k, note in enumerate(notes[:4]):
        lines.add(Text(FRONT_W / 2, 162 + 4 * k - 2 * max(0, len(notes) - 3), note, 2.5, MUTED, "middle"))
    group.add(lines)
    return group


def _front_strip(casing: Casing, width: float, t: NullTranslations = ENGLISH, english: bool = False) -> Group:
    """The front of the bomb as a strip ``width`` x :data:`FRONT_STRIP_H` mm (the tall sheet)."""
    group = Group(id="front", cls="front")
    group.add(Rect(0, 0, width, FRONT_STRIP_H, CASE, CASE_EDGE, 0.4, 2.0))
    group.add(_timer_module(casing, 0, 3, t))
    middle = FRONT_W + (width - FRONT_W - 46) / 2
    title, under = t.gettext("THE BOMB"), t.gettext("front: strikes and timer")
    group.add(Text(middle, 10, title, fitted(title, 4, 56), INK, "middle", True))
    group.add(Text(middle, 14.5, under, fitted(under, 2.6, 56), MUTED, "middle"))
    group.add(_solved(casing, middle - 25, 30, 50, t))
    group.add(_manual(width - 47, 3, 41, t, english, room=2 * (47 - 41 / 2) - 2))
    return group


#: The two sheets: wide (the page, print) and tall (beside the panel on /play), in mm.
SHAPES: dict[str, tuple[float, float]] = {"wide": (WIDTH, HEIGHT), "tall": (TALL_WIDTH, TALL_HEIGHT)}


def draw_casing(casing: Casing, shape: str = "wide", language: str = SOURCE) -> Drawing:
    """The casing as a drawing in ``language`` (:mod:`firmware.i18n`): ``wide`` (:data:`WIDTH` x
    :data:`HEIGHT` mm: the front as a column beside the four sides; the one that prints) or ``tall``
    (the front as a strip above them). Its QR code leads to the manual in that language where the
    manual site has one, else to the English one, and says so."""
    t = translations(language)
    english = language != SOURCE
    width, height = SHAPES[shape]
    drawing = Drawing(
        width, height, title=t.gettext("Bomb casing, serial number {serial}").format(serial=casing.serial)
    )
    if shape == "wide":
        drawing.root.add(_front(casing, t, english))
        x, top, side_w = SIDE_X, 0.0, WIDTH - SIDE_X
    else:
        drawing.root.add(_front_strip(casing, width, t, english))
        x, top, side_w = 0.0, FRONT_STRIP_H + SIDE_GAP, width
    for number, widgets in enumerate(_sides(casing, t), start=1):
        drawing.root.add(_draw_side(number, widgets, x, top + (number - 1) * (SIDE_H + SIDE_GAP), side_w, t))
    return drawing


def casing_svg(casing: Casing, shape: str = "wide", language: str = SOURCE) -> str:
    """The casing as SVG: what the pages show and ``baccarat casing --out FILE.svg`` writes."""
    from .drawing import to_svg

    return to_svg(draw_casing(casing, shape, language))
