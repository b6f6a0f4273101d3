"""Issue 34.9: discovery on an account whose describe pages come slowly or fail part-way found nothing. A page
that fails keeps what the pages before it gave (new items added), the region is not complete (nothing in it is
released for not being seen), and the problem is one line. Real boto3 through a local proxy in front of moto."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

from bot.state import Store
from bot.state.discovered import Discovered, Filing
from bot.state.rentals import Rentals
from bot.tls import shared_context
from tests.support.aws import ec2, launch, moto_server
from tests.support.state_template import migrated_state_db


@contextmanager
def breaking_after_first_page(upstream: str) -> Iterator[dict[str, Any]]:
    """A proxy to moto that answers 503 to every DescribeInstances asking for a next page (NextToken)."""
    seen: dict[str, Any] = {"refused": 0}

    class Proxy(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            form = parse_qs(body.decode())
            if form.get("Action") == ["DescribeInstances"] and form.get("NextToken"):
                seen["refused"] += 1
                self.send_response(503)
                self.send_header("content-length", "0")
                self.end_headers()
                return
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
            answer = httpx.post(
                upstream + self.path, content=body, headers=headers, timeout=30, verify=shared_context()
            )
            self.send_response(answer.status_code)
            self.send_header("content-type", answer.headers.get("content-type", "text/xml"))
            self.send_header("content-length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        def log_message(self, *args: Any) -> None:
            """Quiet: http.server would print every proxied request on stderr."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    seen["url"] = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield seen
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_that_fails_keeps_what_the_pages_before_it_gave(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.discover.aws import Aws  # boto3 is imported by the tests that use it, not at collection

    monkeypatch.setattr("bot.discover.aws.PAGE", 5)  # moto's pages: 5 instances each (EC2's minimum is 5)
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")  # the refused page is not retried (a real run retries it)
    with moto_server(monkeypatch) as url:
        client = ec2(url)
        for _ in range(8):
            launch(client, "g5.xlarge")
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        filing = Filing("T1", "CGPU", lambda v: None, "SlackChannel", "Owner", lambda item: (1.0, "hour", "USD"))
        full = Aws(("us-east-1",), url).scan()
        assert len([f for f in full.found if f.kind == "instance"]) == 8 and full.regions_ok == ["us-east-1"]
        Discovered(store).apply(full, filing, datetime.now(UTC))
        with breaking_after_first_page(url) as proxy:
            partial = Aws(("us-east-1",), proxy["url"]).scan()
        assert proxy["refused"] >= 1
        assert len(partial.found) == 5 and partial.regions_ok == []
        assert "5 found before it, kept; the next run reads the rest" in partial.problems["us-east-1"]
        Discovered(store).apply(partial, filing, datetime.now(UTC))
        kept = Rentals(store).instances("T1")
        assert len(kept) == 8 and all(i.released_at is None for i in kept)  # the 3 not seen are not released
