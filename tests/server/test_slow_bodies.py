"""Issue 20.10: bodies were read whole before the token or signature was checked, with no read deadline
and no cap on connections. A heartbeat's token is checked from its header before any body is read; each
body has one deadline (GPU_ADVISOR_READ_TIMEOUT_S, 408); bodies not yet authenticated are capped
(GPU_ADVISOR_MAX_PENDING_BODIES, 503 past it)."""

from __future__ import annotations

import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from tests.server.test_front_door import command, raw, said_anything, signed
from tests.support.slack_harness import Harness, running_app

# How long a test waits for the server to reach a state (both stalled bodies holding their slots, the slots
# back): each wait ends as soon as the state is seen, so this is long only for a CI machine under load, where a
# first request waited on more than the 5 s these waits had and the run failed.
SETTLE_S = 30


def stalled(h: Harness, path: str, length: int, *headers: str) -> socket.socket:
    """A connection that sends a request's headers, promises `length` bytes of body and sends none."""
    where = urlsplit(h.base_url)
    sock = socket.create_connection((where.hostname or "127.0.0.1", where.port or 80), timeout=SETTLE_S)
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
            assert time.monotonic() - started < len(body) * 0.1 / 2  # cut long before the whole body could come
        assert not said_anything(h)


def test_past_the_cap_of_bodies_being_received_a_request_gets_503_then_is_served(tmp_path: Path) -> None:
    with running_app(tmp_path, max_pending_bodies=2, read_timeout_s=20) as h:
        body = command("help")
        head = [f"{k}: {v}" for k, v in signed(body).items()]  # a fresh signature claimed, the body held back
        hold = [stalled(h, "/slack/events", len(body), *head) for _ in range(2)]
        deadline = time.monotonic() + SETTLE_S
        while (answer := raw(h, body, signed(body)))[0] != 503 and time.monotonic() < deadline:
            time.sleep(0.05)  # until both stalled bodies hold their slots
        assert answer == (503, "too many requests being received at once: try again")
        for sock in hold:
            sock.close()  # the slots come back as those reads end
        deadline = time.monotonic() + SETTLE_S
        while (answer := raw(h, body, signed(body)))[0] == 503 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert answer[0] == 200


def test_signed_requests_never_wait_behind_unsigned_bodies_held_open(tmp_path: Path) -> None:
    """Issue 34.7a: 200 unauthenticated 1 MiB bodies held open took the shared slots, and 21 of 40 signed
    commands got 503. Bodies without a signature have slots of their own."""
    with running_app(tmp_path, max_pending_bodies=4, read_timeout_s=20) as h:
        form = "Content-Type: application/x-www-form-urlencoded"
        hold = [stalled(h, "/slack/events", 1 << 20, form) for _ in range(40)]
        try:
            deadline = time.monotonic() + SETTLE_S
            unsigned = command("help")
            while (answer := raw(h, unsigned, {"Content-Type": form[14:]}))[0] != 503 and time.monotonic() < deadline:
                time.sleep(0.05)  # the unsigned slots are all held
            assert answer[0] == 503
            statuses = [raw(h, body, signed(body))[0] for body in (command("help") for _ in range(40))]
            assert statuses == [200] * 40
        finally:
            for sock in hold:
                sock.close()


def test_signed_feishu_callbacks_never_wait_behind_unsigned_bodies_held_open(tmp_path: Path) -> None:
    """Feishu's HTTP callbacks had no cap at all on bodies being received; now they have the same, with the
    requests that carry a fresh X-Lark-Signature counted apart."""
    from tests.support.feishu_harness import running_feishu

    with running_feishu(tmp_path, max_pending_bodies=3, read_timeout_s=20) as f:
        where = urlsplit(f.url)
        hold = []
        for _ in range(30):
            sock = socket.create_connection((where.hostname or "127.0.0.1", where.port or 80), timeout=SETTLE_S)
            head = [f"POST {where.path} HTTP/1.1", f"Host: {where.netloc}", f"Content-Length: {1 << 20}"]
            sock.sendall("\r\n".join([*head, "Content-Type: application/json", "", ""]).encode())
            hold.append(sock)
        try:
            deadline = time.monotonic() + SETTLE_S
            while time.monotonic() < deadline:  # until the unsigned slots are all held
                probe = urllib.request.Request(f.url, data=b"{}", headers={"Content-Type": "application/json"})
                try:
                    urllib.request.urlopen(probe, timeout=SETTLE_S)
                except urllib.error.HTTPError as exc:
                    if exc.code == 503:
                        break
                time.sleep(0.05)
            else:
                raise AssertionError("the unsigned slots were never all held")
            assert [f.send.message(f"help {n}").status_code for n in range(20)] == [200] * 20
        finally:
            for sock in hold:
                sock.close()
