"""A drawing of plain shapes in mm, and its three writers: SVG, PNG (Pillow) and PDF (fpdf2).

The casing is laid out once, as shapes (:mod:`.layout`); each writer only
translates shapes, so the page, the PNG and the PDF show the same thing.
Text is placed by its baseline and anchor, never measured by the layout, so
the writers' fonts may differ a little in width without moving anything.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape, quoteattr

from ..errors import PropError

if TYPE_CHECKING:
    from PIL import ImageFont

#: The fonts the page asks for, in order (the PNG uses DejaVu Sans, the PDF Helvetica).
FONT_FAMILY = "DejaVu Sans, Helvetica, Arial, sans-serif"
MM_PER_INCH = 25.4
PT_PER_MM = 72 / MM_PER_INCH

#: TrueType fonts for the PNG, regular and bold, first found wins (Debian's fonts-dejavu-core,
#: then fonts-liberation).
TRUETYPE_FONTS: tuple[tuple[str, str], ...] = (
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"),
    (
        "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
        "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    ),
)


class DrawingError(PropError):
    """A drawing cannot be written (no font for a PNG, an unknown format)."""


@dataclass(frozen=True)
class Rect:
    """A rectangle, corners rounded by ``radius``."""

    x: float
    y: float
    w: float
    h: float
    fill: str | None = None
    stroke: str | None = None
    width: float = 0.3
    radius: float = 0.0


@dataclass(frozen=True)
class Circle:
    """A circle around (``cx``, ``cy``)."""

    cx: float
    cy: float
    r: float
    fill: str | None = None
    stroke: str | None = None
    width: float = 0.3


@dataclass(frozen=True)
class Line:
    """A straight line with square ends."""

    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str = "#000000"
    width: float = 0.3


@dataclass(frozen=True)
class Polygon:
    """A closed polygon."""

    points: tuple[tuple[float, float], ...]
    fill: str | None = None
    stroke: str | None = None
    width: float = 0.3


@dataclass(frozen=True)
class Text:
    """One line of text: ``(x, y)`` is its baseline at the ``anchor`` (start, middle or end);
    ``size`` is the font size in mm."""

    x: float
    y: float
    text: str
    size: float
    fill: str = "#000000"
    anchor: str = "start"
    bold: bool = False
    #: Not words but the bomb's own data (a serial number, a label, a port's name): never translated.
    keep: bool = False


Shape = Rect | Circle | Line | Polygon | Text


def moved(shape: Shape, dx: float, dy: float) -> Shape:
    """``shape`` shifted by ``dx``, ``dy`` mm."""
    if not dx and not dy:
        return shape
    if isinstance(shape, Rect | Text):
        return replace(shape, x=shape.x + dx, y=shape.y + dy)
    if isinstance(shape, Circle):
        return replace(shape, cx=shape.cx + dx, cy=shape.cy + dy)
    if isinstance(shape, Line):
        return replace(shape, x1=shape.x1 + dx, y1=shape.y1 + dy, x2=shape.x2 + dx, y2=shape.y2 + dy)
    return replace(shape, points=tuple((x + dx, y + dy) for x, y in shape.points))


@dataclass
class Group:
    """Shapes that belong together, drawn ``dx``, ``dy`` mm further on; the SVG keeps the group
    (``id``, ``class``, ``data-*``, a translation) for the page."""

    items: list[Shape | Group] = field(default_factory=list)
    id: str | None = None
    cls: str | None = None
    data: dict[str, str] = field(default_factory=dict)
    title: str | None = None
    dx: float = 0.0
    dy: float = 0.0

    def add(self, *items: Shape | Group) -> None:
        """Append shapes or groups."""
        self.items.extend(items)

    def shapes(self, dx: float = 0.0, dy: float = 0.0) -> Iterator[Shape]:
        """Every shape inside, in drawing order, where it lands on the drawing."""
        dx, dy = dx + self.dx, dy + self.dy
        for item in self.items:
            if isinstance(item, Group):
                yield from item.shapes(dx, dy)
            else:
                yield moved(item, dx, dy)


@dataclass
class Drawing:
    """A picture ``width`` x ``height`` mm, drawn back to front."""

    width: float
    height: float
    root: Group = field(default_factory=Group)
    title: str = ""


# -- SVG --------------------------------------------------------------------------------------


def _n(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _paint(fill: str | None, stroke: str | None, width: float) -> str:
    out = f' fill="{fill or "none"}"'
    if stroke:
        out += f' stroke="{stroke}" stroke-width="{_n(width)}"'
    return out


def _svg_shape(shape: Shape) -> str:
    if isinstance(shape, Rect):
        radius = f' rx="{_n(shape.radius)}"' if shape.radius else ""
        return (
            f'<rect x="{_n(shape.x)}" y="{_n(shape.y)}" width="{_n(shape.w)}" height="{_n(shape.h)}"{radius}'
            f"{_paint(shape.fill, shape.stroke, shape.width)}/>"
        )
    if isinstance(shape, Circle):
        return (
            f'<circle cx="{_n(shape.cx)}" cy="{_n(shape.cy)}" r="{_n(shape.r)}"'
            f"{_paint(shape.fill, shape.stroke, shape.width)}/>"
        )
    if isinstance(shape, Line):
        return (
            f'<line x1="{_n(shape.x1)}" y1="{_n(shape.y1)}" x2="{_n(shape.x2)}" y2="{_n(shape.y2)}" '
            f'stroke="{shape.stroke}" stroke-width="{_n(shape.width)}" stroke-linecap="square"/>'
        )
    if isinstance(shape, Polygon):
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in shape.points)
        return f'<polygon points="{points}"{_paint(shape.fill, shape.stroke, shape.width)}/>'
    weight = ' font-weight="bold"' if shape.bold else ""
    keep = ' translate="no"' if shape.keep else ""
    return (
        f'<text x="{_n(shape.x)}" y="{_n(shape.y)}" font-size="{_n(shape.size)}" text-anchor="{shape.anchor}"'
        f'{weight} fill="{shape.fill}"{keep}>{escape(shape.text)}</text>'
    )


def _svg_group(group: Group, out: list[str]) -> None:
    attributes = ""
    if group.id:
        attributes += f" id={quoteattr(group.id)}"
    if group.cls:
        attributes += f" class={quoteattr(group.cls)}"
    for key, value in group.data.items():
        attributes += f" data-{key}={quoteattr(value)}"
    if group.dx or group.dy:
        attributes += f' transform="translate({_n(group.dx)} {_n(group.dy)})"'
    out.append(f"<g{attributes}>")
    if group.title:
        out.append(f"<title>{escape(group.title)}</title>")
    for item in group.items:
        if isinstance(item, Group):
            _svg_group(item, out)
        else:
            out.append(_svg_shape(item))
    out.append("</g>")


def to_svg(drawing: Drawing) -> str:
    """The drawing as a standalone SVG document, ``width`` x ``height`` mm (1:1 when printed at 100 %).

    Presentation attributes only (no ``style``): the page inlines it under a strict
    Content-Security-Policy. On a screen of another shape it sits at the top, centred across.
    """
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_n(drawing.width)} {_n(drawing.height)}" '
        f'width="{_n(drawing.width)}mm" height="{_n(drawing.height)}mm" preserveAspectRatio="xMidYMin meet" '
        f'role="img" aria-label={quoteattr(drawing.title)} font-family={quoteattr(FONT_FAMILY)}>'
    ]
    if drawing.title:
        out.append(f"<title>{escape(drawing.title)}</title>")
    _svg_group(drawing.root, out)
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- PNG ----------------------------------------------------------------------------------------


def _rgb(colour: str) -> tuple[int, int, int]:
    value = colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def _truetype(bold: bool, size: float) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    for regular, heavy in TRUETYPE_FONTS:
        path = heavy if bold else regular
        if Path(path).is_file():
            return ImageFont.truetype(path, max(1, round(size)))
    try:
        return ImageFont.load_default(size=max(1, round(size)))  # Pillow 10.1+: a scalable font of its own
    except TypeError:
        raise DrawingError(
            "a PNG needs a TrueType font: apt-get install fonts-dejavu-core (or write .svg or .pdf)"
        ) from None


def to_png(drawing: Drawing, dpi: int = 300) -> bytes:
    """The drawing as a PNG at ``dpi`` (its pixel size says so, so it prints 1:1 too)."""
    from PIL import Image, ImageDraw

    scale = dpi / MM_PER_INCH
    image = Image.new("RGB", (round(drawing.width * scale), round(drawing.height * scale)), "white")
    draw = ImageDraw.Draw(image)
    fonts: dict[tuple[bool, int], ImageFont.FreeTypeFont | ImageFont.ImageFont] = {}

    def px(value: float) -> float:
        return value * scale

    def line_width(width: float) -> int:
        return max(1, round(width * scale))

    for shape in drawing.root.shapes():
        if isinstance(shape, Rect):
            box = (px(shape.x), px(shape.y), px(shape.x + shape.w), px(shape.y + shape.h))
            fill = _rgb(shape.fill) if shape.fill else None
            outline = _rgb(shape.stroke) if shape.stroke else None
            width = line_width(shape.width) if shape.stroke else 0
            if shape.radius:
                draw.rounded_rectangle(box, radius=px(shape.radius), fill=fill, outline=outline, width=width)
            else:
                draw.rectangle(box, fill=fill, outline=outline, width=width)
        elif isinstance(shape, Circle):
            box = (px(shape.cx - shape.r), px(shape.cy - shape.r), px(shape.cx + shape.r), px(shape.cy + shape.r))
            draw.ellipse(
                box,
                fill=_rgb(shape.fill) if shape.fill else None,
                outline=_rgb(shape.stroke) if shape.stroke else None,
                width=line_width(shape.width) if shape.stroke else 0,
            )
        elif isinstance(shape, Line):
            draw.line(
                (px(shape.x1), px(shape.y1), px(shape.x2), px(shape.y2)),
                fill=_rgb(shape.stroke),
                width=line_width(shape.width),
            )
        elif isinstance(shape, Polygon):
            points = [(px(x), px(y)) for x, y in shape.points]
            if shape.fill:
                draw.polygon(points, fill=_rgb(shape.fill))
            if shape.stroke:
                draw.line([*points, points[0]], fill=_rgb(shape.stroke), width=line_width(shape.width), joint="curve")
        else:
            key = (shape.bold, round(px(shape.size)))
            if key not in fonts:
                fonts[key] = _truetype(shape.bold, px(shape.size))
            anchor = {"start": "ls", "middle": "ms", "end": "rs"}[shape.anchor]
            draw.text((px(shape.x), px(shape.y)), shape.text, fill=_rgb(shape.fill), font=fonts[key], anchor=anchor)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", dpi=(dpi, dpi))
    return buffer.getvalue()


# -- PDF ----------------------------------------------------------------------------------------


def _pdf_font(pdf: Any, drawing: Drawing) -> str:
    """The PDF's font: Helvetica (built into every PDF reader) while every text is Latin-1 (English,
    French, German, Spanish), else a TrueType font embedded (another language's letters)."""
    texts = [shape.text for shape in drawing.root.shapes() if isinstance(shape, Text)]
    try:
        "".join(texts).encode("latin-1")
        return "helvetica"
    except UnicodeEncodeError:
        pass
    for regular, heavy in TRUETYPE_FONTS:
        if Path(regular).is_file() and Path(heavy).is_file():
            pdf.add_font("unicode", "", regular)
            pdf.add_font("unicode", "B", heavy)
            return "unicode"
    raise DrawingError("this language's letters need a TrueType font in the PDF: apt-get install fonts-dejavu-core")


#: Paper sizes (portrait, mm) a PDF can be laid on.
PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}


def to_pdf(drawing: Drawing, paper: str = "a4") -> bytes:
    """The drawing as a one-page vector PDF, centred 1:1 on ``paper`` (``a4`` or ``letter``),
    turned to landscape when the drawing is wider than high."""
    from fpdf import FPDF

    if paper not in PAPERS:
        raise DrawingError(f"paper {paper!r} is not one of {', '.join(PAPERS)}")
    short, long = PAPERS[paper]
    landscape = drawing.width > drawing.height
    page_w, page_h = (long, short) if landscape else (short, long)
    if drawing.width > page_w or drawing.height > page_h:
        raise DrawingError(f"the drawing ({drawing.width:g} x {drawing.height:g} mm) does not fit on {paper}")
    pdf = FPDF(orientation="L" if landscape else "P", unit="mm", format=(short, long))
    family = _pdf_font(pdf, drawing)
    pdf.set_auto_page_break(False)
    pdf.set_creator("baccarat casing")
    pdf.set_title(drawing.title or "Baccarat casing")
    pdf.add_page()
    ox, oy = (page_w - drawing.width) / 2, (page_h - drawing.height) / 2

    def paint(fill: str | None, stroke: str | None, width: float) -> str | None:
        if fill:
            pdf.set_fill_color(*_rgb(fill))
        if stroke:
            pdf.set_draw_color(*_rgb(stroke))
            pdf.set_line_width(width)
        return "DF" if fill and stroke else "F" if fill else "D" if stroke else None

    for shape in drawing.root.shapes():
        if isinstance(shape, Rect):
            style = paint(shape.fill, shape.stroke, shape.width)
            if style:
                pdf.rect(
                    ox + shape.x,
                    oy + shape.y,
                    shape.w,
                    shape.h,
                    style=style,
                    round_corners=bool(shape.radius),
                    corner_radius=shape.radius,
                )
        elif isinstance(shape, Circle):
            style = paint(shape.fill, shape.stroke, shape.width)
            if style:
                pdf.ellipse(ox + shape.cx - shape.r, oy + shape.cy - shape.r, 2 * shape.r, 2 * shape.r, style=style)
        elif isinstance(shape, Line):
            paint(None, shape.stroke, shape.width)
            pdf.line(ox + shape.x1, oy + shape.y1, ox + shape.x2, oy + shape.y2)
        elif isinstance(shape, Polygon):
            style = paint(shape.fill, shape.stroke, shape.width)
            if style:
                pdf.polygon([(ox + x, oy + y) for x, y in shape.points], style=style)
        else:
            pdf.set_font(family, "B" if shape.bold else "", shape.size * PT_PER_MM)
            pdf.set_text_color(*_rgb(shape.fill))
            width = pdf.get_string_width(shape.text)
            shift = {"start": 0.0, "middle": width / 2, "end": width}[shape.anchor]
            pdf.text(ox + shape.x - shift, oy + shape.y, shape.text)
    return bytes(pdf.output())


#: The formats ``baccarat casing --out`` writes, by file suffix.
FORMATS = (".svg", ".png", ".pdf")


def write(drawing: Drawing, path: Path, *, paper: str = "a4", dpi: int = 300) -> None:
    """Write the drawing to ``path`` in the format its suffix names (:data:`FORMATS`)."""
    suffix = path.suffix.lower()
    if suffix == ".svg":
        data = to_svg(drawing).encode("utf-8")
    elif suffix == ".png":
        data = to_png(drawing, dpi)
    elif suffix == ".pdf":
        data = to_pdf(drawing, paper)
    else:
        raise DrawingError(f"{path.name}: the file name must end in {', '.join(FORMATS)}")
    path.write_bytes(data)
