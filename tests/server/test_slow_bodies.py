"""Issue 20.10: bodies were read whole before the token or signature was checked, with no read deadline
and no cap on connections. A heartbeat's token is checked from its header before any body is read; each
body has one deadline (GPU_ADVISOR_READ_TIMEOUT_S, 408); bodies not yet authenticated are capped
(GPU_ADVISOR_MAX_PENDING_BODIES, 503 past it)."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from tests.server.test_front_door import command, raw, said_anything, signed
from tests.support.slack_harness import Harness, running_app


def stalled(h: Harness, path: str, length: int, *headers: str) -> socket.socket:
    """A connection that sends a request's headers, promises `length` bytes of body and sends none."""
    where = urlsplit(h.base_url)
    sock = socket.create_connection((where.hostname or "127.0.0.1", where.port or 80), timeout=5)
    lines = [f"POST {path} HTTP/1.1", f"Host: {where.netloc}", f"Content-Length: {length}", *headers, "", ""]
    sock.sendall("\r\n".join(lines).encode())
    return sock


def status_of(sock: socket.socket) -> int:
    head = sock.recv(200).decode(errors="replace")
    return int(head.split(" ", 2)[1])


def test_a_heartbeat_without_a_valid_token_is_refused_before_its_body_is_read(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        for auth in ("Authorization: Bearer not-a-token", "X-Nothing: 1"):
            with stalled(h, "/api/heartbeat", 4_000_000, auth, "Content-Type: application/json") as sock:
                assert status_of(sock) == 401  # answered with the 4 MB never sent


def test_a_trickling_body_is_cut_at_the_deadline_with_408_and_nothing_is_done(tmp_path: Path) -> None:
    with running_app(tmp_path, read_timeout_s=0.6) as h:
        body = command("help")
        head = [f"{k}: {v}" for k, v in signed(body).items()]
        with stalled(h, "/slack/events", len(body), *head) as sock:
            stop = threading.Event()

            def trickle() -> None:  # a byte every 0.1 s: no single read waits long, the whole body does
                for byte in body:
                    if stop.wait(0.1):
                        return
                    try:
                        sock.sendall(bytes([byte]))
                    except OSError:
                        return

            sender = threading.Thread(target=trickle, daemon=True)
            sender.start()
            started = time.monotonic()
            try:
                assert status_of(sock) == 408
            finally:
                stop.set()
            assert time.monotonic() - started < 3
        assert not said_anything(h)


def test_past_the_cap_of_bodies_being_received_a_request_gets_503_then_is_served(tmp_path: Path) -> None:
    with running_app(tmp_path, max_pending_bodies=2, read_timeout_s=20) as h:
        hold = [stalled(h, "/slack/events", 1000, "Content-Type: application/x-www-form-urlencoded") for _ in range(2)]
        body = command("help")
        deadline = time.monotonic() + 5
        while (answer := raw(h, body, signed(body)))[0] != 503 and time.monotonic() < deadline:
            time.sleep(0.05)  # until both stalled bodies hold their slots
        assert answer == (503, "too many requests being received at once: try again")
        for sock in hold:
            sock.close()  # the slots come back as those reads end
        deadline = time.monotonic() + 5
        while (answer := raw(h, body, signed(body)))[0] == 503 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert answer[0] == 200
