"""Helpers for the tests of the pages in each language: a prop whose history is kept in memory (as
the simulator's, ``[state] file = ""``), what a person reads on a page (visible text, tooltips,
labels), and which of its words are English the catalog translates otherwise.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from babel.messages.pofile import read_po

from baccarat_core.records import replace
from firmware.app import build_daemon, close_daemon
from firmware.config import Config
from firmware.devices.displays import open_dummy_device
from firmware.history import HistoryKeeper
from firmware.history.store import MemoryStore
from firmware.i18n import LOCALE_DIR
from firmware.room.commands import GameMaster
from firmware.web.backend import DaemonBackend
from firmware.web.history import HistoryPages
from firmware.web.server import WebService
from firmware.web.settings import WebSettings
from tests.browser import WebRig, console_parts
from tests.conftest import Rig

#: The languages that must be complete (tests/test_i18n_catalogs.py).
LANGUAGES = ("fr", "de", "es")

#: Words that are English and yet right in a page of each language, each reviewed: names (the
#: module's, the game's, the software's), the units and the data the prop shows as data.
REVIEWED: dict[str, set[str]] = {
    "all": set("baccarat prop ktane ok min max s x px pdf svg png csv json".split())
    # the ports' names, as the bomb's plate prints them and the manual's tables name them
    | {"parallel", "serial", "stereo", "rca"},
    "fr": set(),
    "de": set(),
    "es": set(),
}

#: Texts left in English in every language, each with its reason (tests/test_i18n_pages.py's too).
KNOWN_ENGLISH: dict[str, str] = {}

#: What a person reads on the page: each visible text node, and each tooltip, placeholder, label and
#: alternative text, with where it is (what HTML's ``translate="no"`` marks as data is left out).
READ = """() => {
  const kept = (el) => el.closest('[translate="no"], script, style' + KNOWN);
  const found = [];
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (!el || !text || kept(el)) continue;
    if (el.tagName.toLowerCase() !== "title" && !el.checkVisibility()) continue;
    const where = el.id ? `#${el.id}` : el.tagName.toLowerCase() + (el.className ? `.${el.className}` : "");
    found.push([where, text]);
  }
  for (const el of document.querySelectorAll("[title], [placeholder], [aria-label], [alt]")) {
    if (kept(el)) continue;
    for (const name of ["title", "placeholder", "aria-label", "alt"]) {
      const value = el.getAttribute(name);
      if (value) found.push([`${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""} ${name}`, value]);
    }
  }
  return found;
}""".replace("KNOWN", repr("".join(f", {selector}" for selector in KNOWN_ENGLISH)))

WORD = re.compile(r"[^\W\d_]+")
FIELD = re.compile(r"\{\w*\}")


def words(text: str) -> set[str]:
    """The words of ``text``, lower case (a message's ``{fields}`` left out)."""
    return {word.lower() for word in WORD.findall(FIELD.sub(" ", text))}


@cache
def english_only(language: str) -> frozenset[str]:
    """The words the catalog's English messages use and ``language``'s translations never do."""
    with (LOCALE_DIR / language / "LC_MESSAGES" / "baccarat.po").open("rb") as source:
        catalog = read_po(source, locale=language)
    english: set[str] = set()
    local: set[str] = set()
    for message in catalog:
        if not message.id:
            continue
        for text in [message.id] if isinstance(message.id, str) else message.id:
            english |= words(text)
        for text in [message.string] if isinstance(message.string, str) else message.string:
            local |= words(text)
    return frozenset(english - local - REVIEWED["all"] - REVIEWED[language])


def english_in(language: str, texts: list[tuple[str, str]]) -> list[str]:
    """Each text of ``texts`` (``(where, text)``) holding a word only the English messages use."""
    wrong = english_only(language)
    found = []
    for where, text in texts:
        left = sorted(words(text) & wrong)
        if left:
            found.append(f"{where}: {text[:100]!r} ({', '.join(left)})")
    return list(dict.fromkeys(found))


def read(page: Any) -> list[tuple[str, str]]:
    """What a person reads on ``page`` now (:data:`READ`)."""
    return [(where, text) for where, text in page.evaluate(READ)]


@pytest.fixture
def memory_web(mock_factory) -> Iterator:
    """``make(config, settings={...})``: a daemon of ``config`` with its console and its History view
    kept in memory (saving is off, as in the simulator); stopped at the end."""
    made: list[WebRig] = []

    def make(config: Config, *, settings: dict[str, Any] | None = None) -> WebRig:
        daemon = build_daemon(config, pin_factory=mock_factory, device_factory=open_dummy_device, rng=random.Random(1))
        rig = Rig(daemon, mock_factory, None)
        commands = GameMaster(daemon, default_limits=config.limits)
        keeper = HistoryKeeper(MemoryStore()).attach(daemon, commands)
        backend = DaemonBackend(daemon, commands, rig.driver, name="test-prop")
        screens = daemon.screens
        displays = {role: (screens[role].size, screens[role].mode, screens[role].colour) for role in backend.roles}
        own, extensions = console_parts(settings or {}, token=None)
        web_settings = replace(WebSettings(enabled=True, port=0, front_panel=True), **own)
        service = WebService(
            backend, web_settings, history=lambda s: HistoryPages(s, keeper, displays), extensions=extensions
        )
        service.start()
        web = WebRig(rig, backend, service)
        web.keeper = keeper  # type: ignore[attr-defined]
        made.append(web)
        daemon.start()
        assert daemon.ready.wait(5), "daemon did not get ready"
        return web

    yield make
    for web in made:
        web.service.stop()
        web.daemon.stop()
        web.keeper.close()  # type: ignore[attr-defined]
        close_daemon(web.daemon)
