"""The board's links: a token signed with the state's secret (itsdangerous, HMAC-SHA1 over the payload) naming
one team and optionally one channel, and when it stops opening the board. The expiry is in the signed payload
and checked against the caller's clock, so tests and replicas agree on it without the library's own clock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from bot.state.secrets import BOARD_LINKS, state_secret
from bot.state.store import Store

if TYPE_CHECKING:
    from itsdangerous import URLSafeSerializer

SALT = "gpu-advisor board link"
PATH = "/board/"


@dataclass(frozen=True)
class Link:
    team: str
    channel: str | None
    expires_at: datetime


class Expired(Exception):
    """A link signed by this state whose time ran out: the page says to ask the bot for a new one."""

    def __init__(self, link: Link) -> None:
        super().__init__(f"expired at {link.expires_at.isoformat()}")
        self.link = link


class Forged(Exception):
    """Not a link this state signed (changed, cut short, made elsewhere): nothing is shown."""


def _serializer(store: Store, now: datetime) -> URLSafeSerializer:
    from itsdangerous import URLSafeSerializer

    return URLSafeSerializer(state_secret(store, BOARD_LINKS, now), salt=SALT)


def make_token(store: Store, team: str, channel: str | None, now: datetime, hours: float) -> tuple[str, datetime]:
    """A token for the board of `team` (or one `channel` of it), and when it expires (`hours` from `now`)."""
    expires = (now + timedelta(hours=hours)).astimezone(UTC).replace(microsecond=0)
    payload = {"t": team, "c": channel or "", "e": int(expires.timestamp())}
    return str(_serializer(store, now).dumps(payload)), expires


def read_token(store: Store, token: str, now: datetime) -> Link:
    """The link a token names. Forged when this state did not sign it; Expired when its time has run out."""
    from itsdangerous import BadSignature

    try:
        payload = _serializer(store, now).loads(token)
        link = Link(str(payload["t"]), str(payload["c"]) or None, datetime.fromtimestamp(int(payload["e"]), UTC))
    except (BadSignature, KeyError, TypeError, ValueError):
        raise Forged from None
    if now >= link.expires_at:
        raise Expired(link)
    return link


def board_url(public_url: str, token: str, as_json: bool = False) -> str:
    return f"{public_url.rstrip('/')}{PATH}{token}{'.json' if as_json else ''}"


def link_for(
    store: Store, public_url: str | None, hours: float, team: str, channel: str | None, now: datetime
) -> tuple[str, datetime] | None:
    """A link to the board of `team` (or one `channel`) at the bot's public address, and when it stops opening;
    None without a public address (GPU_ADVISOR_PUBLIC_URL) to put in front of it."""
    if not public_url:
        return None
    token, expires = make_token(store, team, channel, now, hours)
    return board_url(public_url, token), expires
