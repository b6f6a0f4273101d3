"""Answering over WSGI: a status, a body and its type in one write; a request's headers as a lower-cased dict."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

StartResponse = Callable[..., Any]
Wsgi = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class DoorRefused(RuntimeError):
    """A chat's credentials were refused, or it could not be reached, at start-up: the sentence says which."""


@dataclass(frozen=True)
class Route:
    """A path a front door answers, with the methods it takes there."""

    path: str
    methods: frozenset[str]
    app: Wsgi


def reply(
    start_response: StartResponse,
    status: int,
    body: bytes,
    content_type: str = "text/plain",
    headers: Sequence[tuple[str, str]] = (),
) -> list[bytes]:
    start_response(
        f"{status} {HTTPStatus(status).phrase}",
        [("Content-Type", content_type), ("Content-Length", str(len(body))), *headers],
    )
    return [body]


def headers_of(environ: dict[str, Any]) -> dict[str, str]:
    found = {key[5:].replace("_", "-").lower(): str(value) for key, value in environ.items() if key.startswith("HTTP_")}
    found["content-type"] = str(environ.get("CONTENT_TYPE") or "")
    return found
