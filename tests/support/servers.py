"""A small real HTTP server on 127.0.0.1 for tests: routes by path, records every request, stops itself."""

from __future__ import annotations

import json
import sys
import threading
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

Reply = tuple[int, dict[str, str], bytes]


def fetch(request: str | urllib.request.Request, timeout: float = 10) -> bytes:
    """A request's whole answer, its connection closed with it (a response left to the garbage collector warns of
    an unclosed socket in whichever test collects it)."""
    with urllib.request.urlopen(request, timeout=timeout) as response:
        body: bytes = response.read()
    return body


Route = Reply | list[Reply] | Callable[["Request"], Reply]


@dataclass
class Request:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Server:
    base_url: str
    routes: dict[str, Route]
    requests: list[Request] = field(default_factory=list)

    def hits(self, path: str) -> list[Request]:
        return [r for r in self.requests if r.path == path]


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            request = Request(
                self.command,
                parts.path,
                parts.query,
                dict(self.headers.items()),
                self.rfile.read(length) if length else b"",
            )
            server.requests.append(request)
            route = server.routes.get(parts.path)
            if route is None:
                status, headers, body = 404, {"Content-Type": "text/plain"}, b"not found"
            elif callable(route):
                status, headers, body = route(request)
            elif isinstance(route, list):
                status, headers, body = route.pop(0) if len(route) > 1 else route[0]
            else:
                status, headers, body = route
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = _serve
        do_POST = _serve
        do_PUT = _serve

        def log_message(self, *args: object) -> None:  # keep test output clean
            return

    return Handler


# (method, path, query, lower-cased headers, body) -> (HTTP status, the JSON answer): a cloud fake's whole API
Answerer = Callable[[str, str, str, dict[str, str], bytes], tuple[int, Any]]


def json_api(answer: Answerer, content_type: str = "application/json; charset=utf-8") -> type[BaseHTTPRequestHandler]:
    """A handler that gives every GET, POST and PUT to `answer` as a cloud's OpenAPI receives it (the raw query and
    body, for the fake to check the request's signature over them) and sends its JSON answer back."""

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, said = answer(self.command, parts.path, parts.query, headers, body)
            data = json.dumps(said).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = _serve

        def log_message(self, *args: object) -> None:
            return

    return Handler


# How often a test's HTTP server (a fake, or the app's front door) looks whether it was asked to stop: shutdown() waits
# for that look, 25 ms on average at the 50 ms these servers used, about a thousand times a fast loop. A look costs
# a few microseconds; a server lives a fraction of a second.
POLL_S = 0.005
# A server that lives as long as its test process (one fake cloud a worker) is never waited for: it looks rarely, since
# each look at 5 ms costs 0.8 % of a core (measured), about 0.2 s of CPU over a worker's run.
POLL_FOR_A_PROCESS_S = 0.5


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that went away (a killed bot process) is expected here, not an error to print."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextmanager
def running(handler: type[BaseHTTPRequestHandler], port: int = 0, poll_s: float = POLL_S) -> Iterator[str]:
    """Run `handler` on 127.0.0.1 at a free port (or `port`) for the duration of the block; yields the base URL.
    `poll_s`: how often the server looks whether it was asked to stop (what leaving the block waits for)."""
    httpd = _QuietServer(("127.0.0.1", port), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": poll_s}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


_FOR_THE_PROCESS: list[ThreadingHTTPServer] = []  # held, never shut down


def for_the_process(handler: type[BaseHTTPRequestHandler]) -> str:
    """Run `handler` on 127.0.0.1 at a free port for the rest of the test process; the base URL. Never stopped: its
    daemon thread ends with the process. Not a `running` block held open: that block's generator was closed at the
    interpreter's exit, after daemon threads stop running, and its shutdown then waited for ever for the server's
    thread (a run without -n whose test failed hung at its end)."""
    httpd = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": POLL_FOR_A_PROCESS_S}, daemon=True)
    thread.start()
    _FOR_THE_PROCESS.append(httpd)
    return f"http://127.0.0.1:{httpd.server_address[1]}"


@contextmanager
def serve(routes: dict[str, Route]) -> Iterator[Server]:
    """Serve `routes` for the duration of the block, recording every request."""
    server = Server("", routes)
    with running(_handler(server)) as base_url:
        server.base_url = base_url
        yield server


@contextmanager
def running_websocket(handler: Callable[[Any], None]) -> Iterator[str]:
    """A WebSocket server (websockets' own) for `handler` on 127.0.0.1 at a free port, served on a thread of its own
    for the duration of the block; yields its ws:// URL."""
    from websockets.sync.server import serve

    with serve(handler, "127.0.0.1", 0) as ws:
        thread = threading.Thread(target=ws.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"ws://127.0.0.1:{ws.socket.getsockname()[1]}"
        finally:
            ws.shutdown()
            thread.join(5)
