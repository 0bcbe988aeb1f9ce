"""Secrets out of URLs: what a log line, an error's message or the support bundle may show of a URL.

A webhook's URL can hold its secret in the path (Home Assistant's ``/api/webhook/<id>``, Discord's
token, Slack's), a controller's request its token in the query: :func:`redact_url` keeps the scheme,
host, port and the path's harmless segments; :func:`scrub_urls` does it to every URL in a text.
One rule for the prop (the console's log lines, the webhooks', the support bundle).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from baccarat_core.patterns import Pattern


def redact_url(url: str) -> str:
    """``http://user:pw@host:1/p?key=x`` -> ``http://host:1/p`` (no secrets in logs), the path's
    secrets hidden too (:func:`redact_path`)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "?"
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<unparsable URL>"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}{port}{redact_path(parts.path)}"


#: What a secret part of a URL's path becomes.
PATH_SECRET = "<secret>"
#: A path segment after which the rest of the path is a secret: Home Assistant's
#: ``/api/webhook/<id>``, Discord's ``/api/webhooks/<id>/<token>``, Slack's ``/services/T/B/<secret>``,
#: Zapier's ``/hooks/catch/<n>/<key>``, IFTTT's ``/trigger/<event>/with/key/<key>``.
SECRET_PATH_AFTER = frozenset({"webhook", "webhooks", "services", "hooks", "key", "token", "secret"})
#: A path segment that looks like a key wherever it is: 16 characters or more with a letter and a
#: digit, or 24 or more of a token's characters (a Houdini hook's ``/baccarat_solved`` stays).
_KEY_LIKE = Pattern(r"(?=[^/]*[0-9])(?=[^/]*[A-Za-z])[^/]{16,}|[A-Za-z0-9_.~-]{24,}")
#: A URL in a text (a log line, an error's message).
_URL_IN_TEXT = Pattern(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s'\"<>)?#]*)(/[^\s'\"<>)?#]*)")


def redact_path(path: str) -> str:
    """``path`` with its secrets replaced by ``<secret>``: every segment after one of
    :data:`SECRET_PATH_AFTER`, and any segment that looks like a key. The one rule for a URL's path.

    >>> redact_path("/api/webhook/-Ab3kQ_solved")
    '/api/webhook/<secret>'
    >>> redact_path("/services/T0AB/B0CD/xoxb7d8Kq")
    '/services/<secret>/<secret>/<secret>'
    >>> redact_path("/baccarat_solved")
    '/baccarat_solved'
    """
    out: list[str] = []
    after = False
    for segment in path.split("/"):
        secret = after or bool(_KEY_LIKE.fullmatch(segment))
        out.append(PATH_SECRET if secret and segment else segment)
        after = after or segment.lower() in SECRET_PATH_AFTER
    return "/".join(out)


def redact_url_paths(text: str) -> str:
    """``text`` with every URL's path redacted (:func:`redact_path`), for a log line or a file.

    >>> redact_url_paths("POST https://discord.com/api/webhooks/123/tOkEn failed")
    'POST https://discord.com/api/webhooks/<secret>/<secret> failed'
    """
    return _URL_IN_TEXT.sub(lambda m: m.group(1) + redact_path(m.group(2)), text)


_URL_SECRETS = Pattern(r"(//)[^/@\s'\"]*@|\?[^\s'\"<>)]*|#[^\s'\"<>)]*")


def scrub_urls(text: str) -> str:
    """``text`` with every URL's credentials, query and fragment cut out, and the secrets of its path
    (:func:`redact_path`) hidden (for log lines).

    >>> scrub_urls("Too many redirects: http://u:pw@h/x?token=abc")
    'Too many redirects: http://h/x'
    >>> scrub_urls("Cannot reach http://ha:8123/api/webhook/my-id?x=1")
    'Cannot reach http://ha:8123/api/webhook/<secret>'
    """
    return redact_url_paths(_URL_SECRETS.sub(lambda m: m.group(1) or "", text))
