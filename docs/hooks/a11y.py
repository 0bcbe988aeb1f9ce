"""MkDocs hook: the search box's dialog has a name for screen readers (Material's partial gives its
``role="dialog"`` none: axe-core's aria-dialog-name rule, tests/test_a11y_pages.py)."""

from __future__ import annotations

from typing import Any

SEARCH = '<div class="md-search" data-md-component="search" role="dialog">'


def on_post_page(output: str, page: Any, config: Any) -> str:
    """Name the search dialog on every page."""
    return output.replace(SEARCH, SEARCH[:-1] + ' aria-label="Search">')
