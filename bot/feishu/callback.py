"""Checking a callback POSTed to /feishu/events before anything is done with it.

With an Encrypt Key, Feishu encrypts the body (`{"encrypt": …}`, AES-256-CBC under SHA-256 of the key, the IV in
front) and signs it: X-Lark-Signature = hex SHA-256 of timestamp + nonce + encrypt key + the raw body. Without one,
the body is plain JSON carrying the Verification Token (header.token in schema 2.0, token in the URL check).
A missing, bad or stale (more than 5 minutes off) signature, a wrong token or an unreadable body is refused with
401 or 400 and nothing is done (the SDK's own handler answers a wrong token with 500, which Feishu would retry).
The URL check (`url_verification`) is answered with its challenge; Feishu does not sign it."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

MAX_SKEW_S = 300


@dataclass(frozen=True)
class Refused:
    status: int
    reason: str


@dataclass(frozen=True)
class Opened:
    payload: dict[str, Any]

    @property
    def challenge(self) -> str | None:
        """The URL check's challenge, when this is Feishu checking the callback URL."""
        if self.payload.get("type") == "url_verification":
            return str(self.payload.get("challenge", ""))
        return None


def signature(timestamp: str, nonce: str, encrypt_key: str, body: bytes) -> str:
    return hashlib.sha256((timestamp + nonce + encrypt_key).encode() + body).hexdigest()


def decrypt(encrypted: str, encrypt_key: str) -> bytes:
    """The plaintext of Feishu's `encrypt` field (with the SDK's own cipher). ValueError when it is not one."""
    from bot.feishu.sdk import load

    return bytes(load().AESCipher(encrypt_key).decrypt_str(encrypted).encode())


def _token_of(payload: dict[str, Any]) -> str | None:
    header = payload.get("header")
    token = header.get("token") if isinstance(header, dict) else payload.get("token")
    return token if isinstance(token, str) else None


def open_callback(
    body: bytes, headers: dict[str, str], *, encrypt_key: str, verification_token: str, now: float
) -> Opened | Refused:
    """The callback's payload, or why it is refused. `headers` with lower-case names; `now` in Unix seconds.

    A signed request's signature is checked on the raw bytes before anything is read from them; JSON nested past
    the parser's depth is refused as not JSON, like any other body that does not parse (400, never a 500)."""
    signed = bool(headers.get("x-lark-signature"))
    if encrypt_key and signed:
        refused = _check_signature(body, headers, encrypt_key, now)
        if refused is not None:
            return refused
    try:
        outer = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return Refused(400, "the body is not JSON")
    if not isinstance(outer, dict):
        return Refused(400, "the body is not a JSON object")
    if encrypt_key:
        if not isinstance(outer.get("encrypt"), str):
            return Refused(401, "an encrypt key is set: the body must be encrypted")
        try:
            payload = json.loads(decrypt(outer["encrypt"], encrypt_key))
        except (ValueError, UnicodeDecodeError, RecursionError):
            return Refused(401, "the body does not decrypt with the encrypt key")
        if not isinstance(payload, dict):
            return Refused(400, "the decrypted body is not a JSON object")
    else:
        payload = outer
    if verification_token and (not encrypt_key or payload.get("type") == "url_verification"):
        token = _token_of(payload)
        if token is None or not hmac.compare_digest(token.encode(), verification_token.encode()):
            return Refused(401, "the verification token does not match")
    if payload.get("type") == "url_verification":
        return Opened(payload)
    if encrypt_key and not signed:
        return Refused(401, "X-Lark-Request-Timestamp, X-Lark-Request-Nonce and X-Lark-Signature are required")
    return Opened(payload)


def claims_signature(environ: dict[str, Any], now: float) -> bool:
    """Do the headers carry Feishu's signature (64 hex digits) with a timestamp inside the window and a nonce?
    Claimed, not checked (that needs the body): such a request gets a body slot apart from the unsigned."""
    stamp = str(environ.get("HTTP_X_LARK_REQUEST_TIMESTAMP") or "")
    signed = str(environ.get("HTTP_X_LARK_SIGNATURE") or "")
    return (
        stamp.isdigit()
        and abs(now - int(stamp)) <= MAX_SKEW_S
        and bool(environ.get("HTTP_X_LARK_REQUEST_NONCE"))
        and len(signed) == 64
        and all(c in "0123456789abcdef" for c in signed)
    )


def _check_signature(body: bytes, headers: dict[str, str], encrypt_key: str, now: float) -> Refused | None:
    stamp = headers.get("x-lark-request-timestamp", "")
    nonce = headers.get("x-lark-request-nonce", "")
    signed = headers.get("x-lark-signature", "")
    if not (stamp and nonce and signed):
        return Refused(401, "X-Lark-Request-Timestamp, X-Lark-Request-Nonce and X-Lark-Signature are required")
    try:
        skew = abs(now - int(stamp))
    except ValueError:
        return Refused(401, "X-Lark-Request-Timestamp is not a Unix time")
    if skew > MAX_SKEW_S:
        return Refused(401, f"the request is {int(skew)} s old: more than {MAX_SKEW_S} s")
    if not hmac.compare_digest(signed, signature(stamp, nonce, encrypt_key, body)):
        return Refused(401, "X-Lark-Signature does not match")
    return None
