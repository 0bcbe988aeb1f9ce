"""The docs site at ``/docs/``, on the console's port: how to play, run, build, integrate and operate
the prop, readable on a phone on the room's network with no internet.

The site is built from ``docs/`` by MkDocs (``scripts/build_docs.sh``, into ``site/`` beside the
code; ``mkdocs.yml`` says how) and served here as it is:

- read-only and without a login: the docs hold nothing secret, and a game master's phone needs
  no password to read how to reset a stuck lock (the console's own pages keep theirs);
- only files under the site's folder: no ``..``, no hidden name, no symlink that leads out of it;
  a folder's ``index.html``; a page that is not there (or a path the system cannot look up: a 256-byte
  name, a folder it may not read), a short page linking the docs' front page
  (status 404; the site's own ``404.html`` links its files relative to the site's top, which only
  works at the top);
- each page's Content-Security-Policy lets the page load nothing but the prop's own files, and run
  no inline script but its own, each named by its hash (the theme has three small ones);
- no site built (a checkout where ``scripts/build_docs.sh`` never ran, or could not): one short
  page saying how to build it.

>>> docs_file(Path("/srv/site"), "play/")
PosixPath('/srv/site/play/index.html')
>>> docs_file(Path("/srv/site"), "../etc/passwd") is None
True
>>> script_hashes(b"<script>a()</script><script src='x.js'></script>")
["'sha256-qVpDBgj7bpq5hMAcGp3AOc79J3Y1Z4HvySTwKrWDoy4='"]
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path, PurePosixPath

from aiohttp import web

#: Where ``scripts/build_docs.sh`` builds the site (``site_dir`` in mkdocs.yml), beside the code.
SITE = Path(__file__).resolve().parents[2] / "site"
#: The site's address on the console's port.
PREFIX = "/docs/"

#: Headers of every docs response (the console's own pages have theirs: :mod:`.server`).
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-cache",  # asked again each time (a 304 when unchanged): an update shows at once
}
#: A page's policy; ``{scripts}`` is its inline scripts' hashes.
POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self' {scripts}; "
    "connect-src 'self'; worker-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
)
#: Every other response's (a picture opened on its own, the short pages below): nothing runs.
PLAIN_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'"
#: An inline script: a ``<script>`` without ``src``, and its text.
INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\ssrc=)[^>]*>(.*?)</script>", re.S | re.I)

MISSING = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>No such page</title></head>
<body><h1>No such page in the docs</h1><p><a href="/docs/">The docs' front page</a> has a search box.</p></body></html>
"""

NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Docs not built</title></head>
<body>
<h1>The docs are not built on this prop</h1>
<p>The docs site is made from the prop's <code>docs/</code> folder when the prop is installed. It was not
made here (its builder, mkdocs-material, could not be installed: the first install needs the package
index once).</p>
<p>In the prop's folder (<code>/opt/baccarat/current</code> on a Pi with the service), run
<code>sudo bash scripts/build_docs.sh</code>, then reload this page. The same pages are in that
<code>docs/</code> folder as Markdown, readable in any text editor.</p>
</body></html>
"""

_policies: dict[Path, tuple[int, int, str]] = {}


def docs_file(root: Path, path: str) -> Path | None:
    """The file under ``root`` for the URL path ``path`` (what follows ``/docs/``): a folder's
    ``index.html``; None for a path that could lead out of ``root`` or names a hidden file."""
    parts = PurePosixPath(path).parts
    if any(part in ("..", ".") or part.startswith(".") or "\0" in part or "\\" in part for part in parts):
        return None
    if path.startswith("/"):
        return None
    target = root.joinpath(*parts)
    if path == "" or path.endswith("/"):
        target = target / "index.html"
    return target


def script_hashes(html: bytes) -> list[str]:
    """The CSP source of each inline script in ``html``: ``'sha256-...'``, in order, without repeats."""
    found: list[str] = []
    for match in INLINE_SCRIPT.finditer(html):
        digest = base64.b64encode(hashlib.sha256(match.group(1)).digest()).decode()
        source = f"'sha256-{digest}'"
        if source not in found:
            found.append(source)
    return found


def _policy(path: Path) -> str:
    """The page's Content-Security-Policy, kept until the file changes."""
    stat = path.stat()
    kept = _policies.get(path)
    if kept is not None and kept[:2] == (stat.st_mtime_ns, stat.st_size):
        return kept[2]
    policy = POLICY.format(scripts=" ".join(script_hashes(path.read_bytes()))).replace(" ;", ";")
    _policies[path] = (stat.st_mtime_ns, stat.st_size, policy)
    return policy


#: The header a docs response keeps its policy in until it is sent (:func:`_docs_headers`), never sent.
POLICY_HEADER = "X-Baccarat-Docs-Policy"


def _docs(response: web.StreamResponse, policy: str = PLAIN_POLICY) -> web.StreamResponse:
    """Mark ``response`` as the docs', with ``policy``."""
    response.headers[POLICY_HEADER] = policy
    return response


async def _docs_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Give a docs response the docs' headers as it is sent: after every middleware, so that the
    console's own (a stricter policy, no inline script at all) do not replace them."""
    policy = response.headers.pop(POLICY_HEADER, None)
    if policy is not None:
        response.headers.update(HEADERS)
        response.headers["Content-Security-Policy"] = policy


class DocsSite:
    """The ``/docs/`` routes for the site built in ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def built(self) -> bool:
        """True when the site has its front page."""
        return (self.root / "index.html").is_file()

    async def redirect(self, request: web.Request) -> web.StreamResponse:
        """``/docs`` -> ``/docs/``."""
        raise web.HTTPFound(PREFIX)

    async def page(self, request: web.Request) -> web.StreamResponse:
        """One file of the site, or its 404 page, or the page saying it is not built."""
        if not self.built:
            return _docs(web.Response(status=404, text=NOT_BUILT, content_type="text/html"))
        path = request.match_info["path"]
        target = docs_file(self.root, path)
        try:  # any OSError a path can cause (a 256-byte name, too deep a one, a folder not readable): 404
            if target is not None and target.is_dir():  # a folder's page needs its slash: its links are relative
                raise web.HTTPFound(f"{PREFIX}{path}/")
            if target is None or not self._inside(target) or not target.is_file():
                return await self._not_found(request)
            policy = _policy(target) if target.suffix == ".html" else PLAIN_POLICY
        except OSError:
            return await self._not_found(request)
        return _docs(web.FileResponse(target), policy)

    def _inside(self, target: Path) -> bool:
        try:
            return target.resolve().is_relative_to(self.root.resolve())
        except (OSError, RuntimeError):  # a symlink loop
            return False

    async def _not_found(self, request: web.Request) -> web.StreamResponse:
        return _docs(web.Response(status=404, text=MISSING, content_type="text/html"))


def register(app: web.Application, root: Path | None = None) -> DocsSite:
    """Serve the site built in ``root`` (default :data:`SITE`) at ``/docs/`` (GET and HEAD)."""
    site = DocsSite(SITE if root is None else root)
    app.on_response_prepare.append(_docs_headers)
    app.router.add_get(PREFIX.rstrip("/"), site.redirect)
    app.router.add_get(PREFIX + "{path:.*}", site.page)
    return site
