"""Reading request bodies without letting a slow or hostile client hold the process: one deadline for
the whole body (not per packet, so a byte every few seconds does not keep a thread forever), and a cap
on how many bodies not yet authenticated may be in flight at once (each can be up to the size limit)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

SOCKET_KEY = "gpu_advisor.socket"  # the connection's socket, put in the WSGI environ by our handler
CHUNK = 64 * 1024


def too_large(environ: dict[str, Any], limit: int) -> bool:
    """True when the declared length is above `limit` (or not a number): refuse before reading."""
    length = environ.get("CONTENT_LENGTH") or "0"
    return not length.isdigit() or int(length) > limit


class BodyTimeout(Exception):
    """The body did not arrive within the deadline: `got` of `expected` bytes."""

    def __init__(self, got: int, expected: int, deadline_s: float) -> None:
        super().__init__(f"the body did not arrive within {deadline_s:g} s ({got} of {expected} bytes)")
        self.got, self.expected = got, expected


class TooManyPending(Exception):
    """More unauthenticated bodies are being received than allowed at once."""


def read_body(environ: dict[str, Any], deadline_s: float) -> bytes:
    """The request's body (its Content-Length), within `deadline_s` from now, else BodyTimeout. A client
    that closes early gives what it sent (the signature or JSON check then refuses it)."""
    expected = int(environ.get("CONTENT_LENGTH") or 0)
    stream = environ["wsgi.input"]
    sock: socket.socket | None = environ.get(SOCKET_KEY)
    read = getattr(stream, "read1", stream.read)
    ends = time.monotonic() + deadline_s
    before = sock.gettimeout() if sock is not None else None
    try:
        return _read_until(read, sock, expected, ends, deadline_s)
    finally:
        if sock is not None:
            sock.settimeout(before)  # the reply is not held to what was left of the body's deadline


def _read_until(read: Any, sock: socket.socket | None, expected: int, ends: float, deadline_s: float) -> bytes:
    parts: list[bytes] = []
    got = 0
    while got < expected:
        left = ends - time.monotonic()
        if left <= 0:
            raise BodyTimeout(got, expected, deadline_s)
        if sock is not None:
            sock.settimeout(left)
        try:
            part = read(min(CHUNK, expected - got))
        except TimeoutError:
            raise BodyTimeout(got, expected, deadline_s) from None
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


class PendingBodies:
    """At most `limit` bodies received at once before they are authenticated, past it TooManyPending; counted
    apart for requests whose headers carry the chat's signature with a fresh timestamp (`signed`) and the rest,
    so bodies without one, however many are held open, never take a signed request's place. A request that
    forges such headers is refused at the signature check once its body is in, and holds a signed slot at most
    until the read deadline."""

    def __init__(self, limit: int) -> None:
        self._slots = {True: threading.BoundedSemaphore(limit), False: threading.BoundedSemaphore(limit)}

    @contextmanager
    def slot(self, signed: bool = False) -> Iterator[None]:
        slots = self._slots[signed]
        if not slots.acquire(blocking=False):
            raise TooManyPending
        try:
            yield
        finally:
            slots.release()
