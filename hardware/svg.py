"""The few SVG elements the generated pictures are drawn with."""

from __future__ import annotations

from xml.sax.saxutils import escape


def _n(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _text(x: float, y: float, text: str, size: float, anchor: str = "start", **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}"{extra}>{escape(text)}</text>'


def _line(x1: float, y1: float, x2: float, y2: float, colour: str, width: float = 2, **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return (
        f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{colour}" '
        f'stroke-width="{_n(width)}"{extra}/>'
    )


def _svg(width: float, height: float, body: list[str], unit: str = "") -> str:
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}{unit}" height="{_n(height)}{unit}" '
            f'viewBox="0 0 {_n(width)} {_n(height)}" font-family="DejaVu Sans, Arial, sans-serif">',
            f'<rect width="{_n(width)}" height="{_n(height)}" fill="white"/>',
            *body,
            "</svg>",
            "",
        ]
    )
