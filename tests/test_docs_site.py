"""The docs site (issue 32): `mkdocs build --strict` passes (no broken link or anchor, no page left out
of the nav), the built site holds the generated reference pages and every room service's page,
nothing in it is fetched from outside it, and the command and config examples the pages show run as
shown."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from firmware.broker.settings import MqttConfig
from firmware.cli import COMMAND_MODULES
from firmware.config import DEFAULT_CONFIG, parse_config
from firmware.config.core import CORE_KEYS
from firmware.services.mqtt.room import TOPICS
from firmware.services.registry import installed
from tests.conftest import ROOT

DOCS = ROOT / "docs"
EXAMPLE = ROOT / "examples" / "service" / "baccarat_event_log" / "__init__.py"


def build_site(into: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of the checkout's site into ``into``."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(into)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built once for the module (a failed build fails every test that needs it)."""
    into = tmp_path_factory.mktemp("site")
    done = build_site(into)
    assert done.returncode == 0, done.stdout + done.stderr
    return into


def page_text(site: Path, page: str) -> str:
    """A built page's HTML (``run/console.md`` -> ``run/console/index.html``)."""
    name = page.removesuffix(".md")
    path = site / "index.html" if name == "index" else site / name.removesuffix("/index") / "index.html"
    return path.read_text(encoding="utf-8")


def test_the_site_builds_strict_with_no_warning(site):
    """The build itself (the fixture) passed `--strict`; and a page with a broken anchor fails it, so
    the strictness is real (the same build on a copy of the docs with one bad link)."""
    assert (site / "index.html").is_file() and (site / "search" / "search_index.json").is_file()


def test_a_broken_anchor_fails_the_strict_build(tmp_path):
    """The same config over a copy of the pages with one more, whose link names an anchor that is not
    there: `--strict` refuses it, naming the anchor."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for entry in DOCS.iterdir():
        (docs / entry.name).symlink_to(entry)
    (docs / "broken.md").write_text("# Broken\n\n[a lock](run/outputs.md#no-such-anchor)\n")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    config = config.replace("docs_dir: docs", f"docs_dir: {docs}").replace("- docs/hooks/", f"- {DOCS}/hooks/")
    config = config.replace("  - Home: index.md\n", "  - Home: index.md\n  - Broken: broken.md\n")
    (tmp_path / "mkdocs.yml").write_text(config)
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "out")],
        cwd=tmp_path,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0 and "no-such-anchor" in done.stderr, done.stderr


def test_the_built_site_holds_every_key_command_and_topic(site):
    """The generated reference pages are in the site (the hook ran), with what the code has."""
    config = page_text(site, "reference/config.md")
    for keys in CORE_KEYS.values():
        for key in keys:
            assert f"<code>{key.name}</code>" in config, key.name
    for owners in installed().tables().values():
        for owner in owners:
            for key in owner.keys:
                assert f"<code>{key.name}</code>" in config, (owner.name, key.name)
    cli = page_text(site, "reference/cli.md")
    for command in COMMAND_MODULES:
        assert f"<code>baccarat {command}</code>" in cli, command
    mqtt = page_text(site, "reference/mqtt.md")
    defaults = MqttConfig(host="broker")
    for prefix, rest, _, _ in TOPICS.values():
        assert f"<code>{getattr(defaults, prefix)}/{rest}</code>" in mqtt, rest
    pinmap = page_text(site, "build/pinmap.md")
    assert (
        "GPIO15" in pinmap
        and (site / "build" / "wiring.svg").read_bytes() == (ROOT / "hardware" / "wiring.svg").read_bytes()
    )


def test_every_installed_service_has_its_docs_page(site):
    """Each room service names its page (``docs = "integrate/mqtt.md"``): the page exists in docs/ and in
    the built site. The example plugin's page too (it is not installed in the suite's venv)."""
    pages = {service.name: service.docs for service in installed() if service.docs}
    assert {"mqtt", "web", "clue_control"} <= set(pages), pages
    example = re.search(r'^\s*docs = "([^"]+)"', EXAMPLE.read_text(encoding="utf-8"), re.M)
    assert example, "the example plugin names no docs page"
    pages["event_log (examples/service)"] = example.group(1)
    for name, page in pages.items():
        assert (DOCS / page).is_file(), f"{name}: docs/{page} does not exist"
        assert "<h1" in page_text(site, page), f"{name}: {page} is not in the built site"


def test_the_consoles_help_links_lead_to_pages_and_anchors_of_the_site(site):
    """The console's pages link the docs page for what they show: each link is a page of the built site,
    and its anchor is one of the page's headings."""
    links = []
    for page in (ROOT / "firmware" / "web" / "static").glob("*.html"):
        links += re.findall(r'href="/docs/([^"#]*)(?:#([^"]*))?"', page.read_text(encoding="utf-8"))
    assert len(links) >= 3, links
    for path, anchor in links:
        html = site / path / "index.html"
        assert html.is_file(), path
        if anchor:
            assert f'id="{anchor}"' in html.read_text(encoding="utf-8"), (path, anchor)


def test_the_architecture_picture_names_what_is_there():
    """docs/develop/architecture.svg is drawn by hand: every path it names exists, and its boxes are the
    prop's own room services, all of them (a new built-in service fails this until it is drawn)."""
    svg = (DOCS / "develop" / "architecture.svg").read_text(encoding="utf-8")
    texts = re.findall(r">([^<>]+)</text>", svg)
    paths = {m for text in texts for m in re.findall(r"(?:firmware|baccarat_core)/[\w/]*(?:\.py)?", text)}
    assert len(paths) >= 8, paths
    for path in paths:
        assert (ROOT / path.rstrip("/")).exists(), path
    built_in = {s.name for s in installed() if type(s).__module__.startswith("firmware.services")}
    boxes = set(re.findall(r'<text x="\d+" y="71">([a-z_0-9]+)</text>', svg))  # the row of service boxes
    assert boxes == built_in, (boxes, built_in)


#: Resource-loading attributes: what a browser fetches by itself (a link's href it only follows).
FETCHED = {("script", "src"), ("img", "src"), ("img", "srcset"), ("iframe", "src"), ("source", "src"),
           ("source", "srcset"), ("audio", "src"), ("video", "src"), ("embed", "src"), ("object", "data")}  # fmt: skip
LINK_RELS = {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "manifest", "apple-touch-icon"}
OUTSIDE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.I)


class _Fetches(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name, value in attrs:
            if value and (tag, name) in FETCHED:
                self.urls += [part.split()[0] for part in value.split(",") if part.strip()]
        if tag == "link" and values.get("href") and LINK_RELS & set((values.get("rel") or "").split()):
            self.urls.append(values["href"] or "")


def test_nothing_in_the_site_is_fetched_from_outside_it(site):
    """Offline: no page, style sheet or script of the site makes the browser fetch from another host
    (web fonts, a CDN's script, a remote picture). Links a reader follows may point anywhere."""
    outside: list[str] = []
    for html in site.rglob("*.html"):
        parser = _Fetches()
        parser.feed(html.read_text(encoding="utf-8"))
        outside += [f"{html.relative_to(site)}: {url}" for url in parser.urls if OUTSIDE.match(url)]
    for css in site.rglob("*.css"):
        text = css.read_text(encoding="utf-8")
        for url in re.findall(r"url\(\s*['\"]?([^'\")]+)", text) + re.findall(r"@import\s+['\"]([^'\"]+)", text):
            if OUTSIDE.match(url):
                outside.append(f"{css.relative_to(site)}: {url}")
    assert outside == []


def test_the_site_has_no_font_from_the_web_and_local_search(site):
    """`theme: font: false` (no Google Fonts link), and the search plugin's index in the site."""
    front = page_text(site, "index.md")
    assert "fonts.googleapis" not in front and "fonts.gstatic" not in front
    index = (site / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "stuck lock" in index.lower() or "a lock that will not open" in index.lower()


# -- the examples the pages show ----------------------------------------------------------------------


def _blocks(language: str) -> list[tuple[str, str]]:
    """(page, body) of every ```language block in docs/."""
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for body in re.findall(rf"^```{language}\n(.*?)^```", text, re.M | re.S):
            found.append((str(page.relative_to(DOCS)), body))
    return found


def _console_examples() -> list[tuple[str, str, list[str]]]:
    """(page, command, shown output) of each ``$ `` command in a console block (not the sudo ones)."""
    examples = []
    for page, body in _blocks("console"):
        lines = body.splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                i += 1
                continue
            command = lines[i][2:]
            while command.endswith("\\"):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            i += 1
            shown = []
            while i < len(lines) and not lines[i].startswith("$ "):
                shown.append(lines[i])
                i += 1
            if not command.startswith("sudo "):
                examples.append((page, command, shown))
    return examples


CONSOLE_EXAMPLES = _console_examples()


def test_the_pages_show_console_examples():
    assert len(CONSOLE_EXAMPLES) >= 4, CONSOLE_EXAMPLES


@pytest.mark.parametrize(
    ("page", "command", "shown"), CONSOLE_EXAMPLES, ids=[f"{p}:{c[:40]}" for p, c, _ in CONSOLE_EXAMPLES]
)
def test_a_console_example_prints_what_the_page_shows(page, command, shown):
    """The command runs (`baccarat` is this venv's) and its output begins as the page shows it; a line
    with `...` is compared up to it, and a line of `...` alone ends the comparison."""
    bin_dir = str(Path(sys.executable).parent)
    assert "baccarat" in command, command
    done = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {command}"],
        cwd=ROOT,
        env={**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    actual = done.stdout.splitlines()
    for n, line in enumerate(shown):
        if line.strip() == "...":
            break
        assert n < len(actual), f"{page}: {command}: the output ends before {line!r}"
        if "..." in line:
            assert actual[n].startswith(line.split("...")[0].rstrip(" ,")), (page, line, actual[n])
        else:
            assert actual[n].rstrip() == line.rstrip(), (page, n, line, actual[n])


#: Tables of TOML blocks that are no config of the prop: pyproject's, the example plugin's section
#: and the tutorial's (plugins the suite's venv does not have; tests/test_service_plugins.py and
#: tests/test_examples_relay.py install and check them),
#: and scripts/mutants.toml's entries (tests/test_mutants.py checks those).
NOT_CONFIG = {"project", "tool", "build-system", "event_log", "relay", "mutant"}


def _merge(config: dict, block: dict) -> dict:
    """``block``'s tables over ``config``'s: a table replaces the one of that name, except a table
    that only holds sub-tables (``[mqtt.room_requests]``), which goes into it."""
    merged = dict(config)
    for name, table in block.items():
        if isinstance(table, dict) and table and all(isinstance(v, dict) for v in table.values()):
            merged[name] = {**merged.get(name, {}), **table}
        else:
            merged[name] = table
    return merged


def _config_examples() -> list[tuple[str, list[dict]]]:
    by_page: dict[str, list[dict]] = {}
    for page, body in _blocks("toml"):
        block = tomllib.loads(body)
        if not NOT_CONFIG & set(block):
            by_page.setdefault(page, []).append(block)
    return sorted(by_page.items())


CONFIG_EXAMPLES = _config_examples()


def test_the_pages_show_config_examples():
    assert len(CONFIG_EXAMPLES) >= 12, [page for page, _ in CONFIG_EXAMPLES]


@pytest.mark.parametrize(("page", "blocks"), CONFIG_EXAMPLES, ids=[page for page, _ in CONFIG_EXAMPLES])
def test_a_config_example_is_a_config_the_prop_takes(page, blocks):
    """Each TOML block of a page, over the reference config and the page's blocks before it, passes
    the checks `check-config` makes (parse_config: every key, bound and cross-key rule)."""
    config = tomllib.loads(DEFAULT_CONFIG.read_text(encoding="utf-8"))
    for block in blocks:
        config = _merge(config, block)
        parse_config(config, source=f"docs/{page}")
