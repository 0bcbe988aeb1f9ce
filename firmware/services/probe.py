"""Asking the network from ``baccarat doctor``: does a host answer on a TCP port?"""

from __future__ import annotations

import socket


def tcp_reachable(host: str, port: int, timeout: float = 2.0) -> str | None:
    """None when ``host:port`` takes a TCP connection within ``timeout`` (closed at once, nothing
    sent); else why not, in words (``connection refused``, ``timed out``, ``name not known``)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except socket.gaierror:
        return "the name is not known"
    except TimeoutError:
        return "timed out"
    except OSError as error:
        return (error.strerror or str(error)).lower()
