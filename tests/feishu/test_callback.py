"""The checks of a callback before anything is done with it (bot/feishu/callback.py), each refusal with its reason."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest

from bot.feishu.callback import Opened, Refused, open_callback, signature
from bot.tls import shared_context
from tests.support.fake_feishu import encrypt
from tests.support.feishu_harness import running_feishu

KEY, TOKEN, NOW = "kl2ydVMp7BLRDYVbfBVmZbGnvRaNv1pq", "v-token-1234567890", 1_764_633_600


def signed(body: bytes, stamp: int = NOW) -> dict[str, str]:
    return {
        "x-lark-request-timestamp": str(stamp),
        "x-lark-request-nonce": "n1",
        "x-lark-signature": signature(str(stamp), "n1", KEY, body),
    }


def test_a_plain_callback_is_checked_by_its_token() -> None:
    payload = {"schema": "2.0", "header": {"event_id": "e1", "token": TOKEN}}
    assert isinstance(
        open_callback(json.dumps(payload).encode(), {}, encrypt_key="", verification_token=TOKEN, now=NOW), Opened
    )
    payload["header"]["token"] = "not-it"
    refused = open_callback(json.dumps(payload).encode(), {}, encrypt_key="", verification_token=TOKEN, now=NOW)
    assert refused == Refused(401, "the verification token does not match")


def test_with_an_encrypt_key_a_plain_or_undecryptable_body_is_refused() -> None:
    plain = json.dumps({"schema": "2.0", "header": {"event_id": "e1"}}).encode()
    assert open_callback(plain, signed(plain), encrypt_key=KEY, verification_token="", now=NOW) == Refused(
        401, "an encrypt key is set: the body must be encrypted"
    )
    other = json.dumps({"encrypt": encrypt(plain, "another-key-entirely")}).encode()
    refused = open_callback(other, signed(other), encrypt_key=KEY, verification_token="", now=NOW)
    assert isinstance(refused, Refused) and refused.status == 401


def test_a_signed_body_is_opened_and_a_stale_or_unsigned_one_refused() -> None:
    body = json.dumps({"encrypt": encrypt(b'{"schema": "2.0", "header": {"event_id": "e1"}}', KEY)}).encode()
    opened = open_callback(body, signed(body), encrypt_key=KEY, verification_token="", now=NOW)
    assert isinstance(opened, Opened) and opened.payload["header"]["event_id"] == "e1"
    stale = open_callback(body, signed(body, NOW - 301), encrypt_key=KEY, verification_token="", now=NOW)
    assert isinstance(stale, Refused) and "301 s old" in stale.reason
    assert open_callback(body, {}, encrypt_key=KEY, verification_token="", now=NOW).status == 401  # type: ignore[union-attr]


def test_a_body_that_is_not_json_is_a_client_error() -> None:
    assert open_callback(b"<xml/>", {}, encrypt_key="", verification_token=TOKEN, now=NOW) == Refused(
        400, "the body is not JSON"
    )


def test_json_nested_past_the_parsers_depth_is_refused_as_not_json() -> None:
    """Issue 53.7: `[` a hundred thousand times, unsigned, answered 500 with a RecursionError traceback a request."""
    deep = b"[" * 100_000
    for key in ("", KEY):
        assert open_callback(deep, {}, encrypt_key=key, verification_token=TOKEN, now=NOW) == Refused(
            400, "the body is not JSON"
        )


def test_a_signed_request_is_checked_on_its_raw_bytes_before_anything_is_read() -> None:
    deep = b"[" * 100_000
    forged = signed(b"something else")
    refused = open_callback(deep, forged, encrypt_key=KEY, verification_token="", now=NOW)
    assert refused == Refused(401, "X-Lark-Signature does not match")  # refused before the body is parsed


def test_the_endpoint_answers_deep_json_with_400_and_one_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with running_feishu(tmp_path) as h, caplog.at_level(logging.INFO):
        answer = httpx.post(
            h.url, content=b"[" * 100_000, headers={"Content-Type": "application/json"}, verify=shared_context()
        )
        assert answer.status_code == 400 and "not JSON" in answer.text
        said = [r for r in caplog.records if "refused a request" in r.getMessage()]
        assert len(said) == 1 and not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
