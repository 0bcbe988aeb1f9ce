"""``baccarat casing``: the bomb casing as an SVG, PNG or PDF file, to label a case before a party."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from baccarat_core import BaccaratError
from baccarat_core.bomb import RandomBombs
from baccarat_core.numbers import parse_count

from . import Parser, arg_type, whole_number
from .deck_play import _given, add_edgework_arguments, config_edgework, edgework_from, game_number, seed_number

if TYPE_CHECKING:
    from ..config import Config


def cmd_casing(args: argparse.Namespace) -> int:
    """Write the casing of the bomb the options (or the config) describe to ``--out``."""
    from ..casing import Casing
    from ..casing.drawing import FORMATS, write
    from ..casing.layout import draw_casing
    from ..i18n import translations
    from .run import config_path

    config = None
    bombs = RandomBombs(args.seed) if args.seed is not None else None
    if bombs is None and not _given(args):
        from ..config import load_config

        config = load_config(config_path(args.config))
    language = args.language or casing_language(config)
    t = translations(language)
    out = Path(args.out)
    if out.suffix.lower() not in FORMATS:
        said = t.gettext("--out {out}: the file name must end in {formats}")
        raise BaccaratError(said.format(out=args.out, formats=", ".join(FORMATS)))
    edgework = edgework_from(args, bombs) if config is None else config_edgework(args, config, None)
    timer = None if not args.minutes else args.minutes * 60.0  # the countdown's full time, as at a reset
    drawing = draw_casing(Casing.from_edgework(edgework, timer=timer), language=language)
    try:
        write(drawing, out, paper=args.paper, dpi=args.dpi)
    except OSError as error:
        said = t.gettext("--out {out}: cannot write ({error})")
        raise BaccaratError(said.format(out=args.out, error=error.strerror or error)) from None
    print(t.gettext("wrote {out} (serial number {serial})").format(out=out, serial=edgework.serial))
    return 0


def casing_language(config: Config | None = None) -> str:
    """The casing's language without ``--language``: the config's (``[web] language``, then
    ``[display] language``), else the shell's (``LANG``)."""
    from .party import party_language

    return party_language(config)


def _dpi(text: str) -> int:
    dpi = parse_count(text, "dpi", maximum=1200)
    if dpi < 72:
        raise BaccaratError(f"dpi {dpi} is below 72 (a PNG to print wants 300)")
    return dpi


def _language(text: str) -> str:
    from ..i18n import languages

    if text not in languages():
        raise BaccaratError(f"--language {text[:20]}: not one of the prop's languages ({', '.join(languages())})")
    return text


def add_commands(sub: argparse._SubParsersAction[Parser]) -> None:
    """Register ``casing``."""
    casing = sub.add_parser("casing", help="draw the bomb casing (serial number, widgets) as SVG, PNG or PDF")
    casing.add_argument("--out", required=True, metavar="FILE", help="FILE.svg, FILE.png or FILE.pdf")
    add_edgework_arguments(casing, limits=False)
    bomb = casing.add_argument_group("a random bomb (instead of --serial and the rest)")
    bomb.add_argument("--seed", type=seed_number, default=None, help="the bomb [edgework] seed = N draws")
    bomb.add_argument("--game", type=game_number, default=1, help="which game's bomb: 1 (default) is the first")
    casing.add_argument(
        "--config", metavar="FILE", help="a config: its edgework or seed (default: the prop's config, as run)"
    )
    casing.add_argument(
        "--minutes",
        type=whole_number("minutes", maximum=600),
        default=None,
        help="the bomb's countdown, printed as its full time (default: NO TIMER)",
    )
    casing.add_argument(
        "--language",
        type=arg_type(_language),
        default=None,
        metavar="CODE",
        help="the casing's words and its manual's link: en, fr, de, es, ... (default: the config's [web] or "
        "[display] language, else LANG's; docs/run/language.md)",
    )
    casing.add_argument("--paper", choices=("a4", "letter"), default="a4", help="the PDF's paper (default a4)")
    casing.add_argument(
        "--dpi",
        type=arg_type(_dpi),
        default=300,
        help="the PNG's resolution, 72-1200 (default 300)",
    )
    casing.set_defaults(handler=cmd_casing)
