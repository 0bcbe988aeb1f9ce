"""The Babel extractor of the pages' HTML (``babel.cfg``: ``html = firmware.i18n.extract:extract_html``).

``pybabel extract -F babel.cfg`` takes the Python and JavaScript messages with Babel's own
extractors (``_()``, ``gettext()``, ``ngettext()``, ``N_()``) and each page's texts with this one:
the texts the server translates (:func:`.html.messages`), each with where it is as a comment.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

from .html import messages


def extract_html(
    fileobj: IO[bytes], keywords: Mapping[str, Any], comment_tags: Collection[str], options: Mapping[str, Any]
) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel's extractor interface: ``(line, function, message, comments)`` for each text of a page."""
    page = fileobj.read().decode(str(options.get("encoding", "utf-8")))
    for line, text, where in messages(page):
        yield line, "gettext", text, [] if where == "text" else [f"HTML {where}"]
