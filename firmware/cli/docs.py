"""``baccarat docs``: where the prop serves its docs, and open them.

A running prop serves the docs site at ``/docs/`` on its console's port
(:mod:`firmware.web.docs_site`). This command reads the console's address from the config as
``run`` does, asks the prop there for the site, and prints each address a phone or a tablet on the
room's network reaches it at (this machine's own last); where a display server exists it opens the
site in a browser too (``--print``: never).
"""

from __future__ import annotations

import argparse
import sys
import urllib.error
import urllib.request

from ..errors import PropError
from . import Parser
from .run import config_path, port_number

#: How long the prop has to answer.
TIMEOUT = 3.0
#: The site's path on the console's port (:data:`firmware.web.docs_site.PREFIX`, not imported: it
#: would bring aiohttp in).
PATH = "/docs/"


class DocsError(PropError):
    """The docs cannot be reached: one line saying why and what to do."""


def probe(url: str, timeout: float = TIMEOUT) -> str:
    """Ask ``url`` for the site: ``"ok"``, ``"not built"``, or raise :class:`DocsError` with why not."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return "ok" if answer.status == 200 else f"status {answer.status}"
    except urllib.error.HTTPError as error:
        body = error.read(4096).decode("utf-8", "replace")
        if error.code == 404 and "not built" in body:
            return "not built"
        raise DocsError(f"{url} answers {error.code}: this prop serves no docs (an older version?)") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise DocsError(
            f"nothing serves the docs at {url} ({reason}): start the prop (baccarat run, or "
            "bash scripts/start.sh for the simulator), or name its config with --config"
        ) from None


def cmd_docs(args: argparse.Namespace) -> int:
    """Print the docs' addresses, and open them where a browser can."""
    from firmware.system.netaddr import reachable_urls

    from ..config import load_config

    config = load_config(config_path(args.config))
    web = config.settings["web"].resolved(simulate=True)  # the port and bind the console has when it is on
    port = args.port or web.port
    urls = reachable_urls(web.bind, port, PATH)
    state = probe(urls[-1])
    if state == "not built":
        print(
            f"baccarat docs: the prop at {urls[-1]} has no docs site built: in its folder, run "
            "bash scripts/build_docs.sh (it needs the package index once)",
            file=sys.stderr,
        )
        return 1
    for url in urls:
        print(url)
    if args.open:
        from ..web.attach import has_display

        if has_display():
            import webbrowser

            webbrowser.open(urls[-1])
    return 0


def add_commands(sub: argparse._SubParsersAction[Parser]) -> None:
    """Register ``docs``."""
    docs = sub.add_parser(
        "docs",
        help="the docs the running prop serves at /docs/: print their addresses, open them",
        description=(
            "Print the addresses of the docs a running prop serves at /docs/ on its console's port (a "
            "phone on the room's network reaches the first; this machine the last), and open them in a "
            "browser where one can open."
        ),
    )
    docs.add_argument("--config", help="the prop's config (default: the one run reads)")
    docs.add_argument("--port", type=port_number, help="the console's port, if not the config's")
    docs.add_argument("--print", dest="open", action="store_false", help="print the addresses only, open nothing")
    docs.set_defaults(handler=cmd_docs)
