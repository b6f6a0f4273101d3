"""Serving the bolt app over HTTP: a threaded WSGI server with bolt's WSGI adapter at /slack/events."""

from __future__ import annotations

from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler

EVENTS_PATH = "/slack/events"


class ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops bursts: a dropped SYN costs the client a 1 s retransmit


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return


def build_server(app: App, host: str, port: int) -> ThreadingWSGIServer:
    handler = SlackRequestHandler(app, path=EVENTS_PATH)

    def wsgi(environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("PATH_INFO") == "/healthz":
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"ok"]
        return handler(environ, start_response)

    server = make_server(host, port, wsgi, server_class=ThreadingWSGIServer, handler_class=QuietHandler)
    return server
