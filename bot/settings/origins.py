"""An address a setting names for a chat's API or connection: its secure scheme anywhere, the plain one only on the
loopback (a local fake), no query, and no path unless the setting takes one."""

from __future__ import annotations

from urllib.parse import urlsplit

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def is_origin(value: str, *, secure: str = "https", plain: str = "http", path: bool = False) -> bool:
    url = urlsplit(value)
    scheme_ok = url.scheme == secure or (url.scheme == plain and url.hostname in LOOPBACK)
    return bool(scheme_ok and url.netloc and not url.query and (path or url.path in ("", "/")))
