"""Who may answer a profile, and until when."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.chat.access import Gate, gate, has_expired, is_starter
from bot.state import Conversation

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
TTL = timedelta(hours=24)


def convo(status: str = "active", idle: timedelta = timedelta(0)) -> Conversation:
    return Conversation(
        id="c1",
        team="T1",
        channel="C1",
        thread_ts="1.2",
        user="U1",
        lang="en",
        status=status,
        created_at=NOW - idle,
        updated_at=NOW - idle,
    )


def test_only_the_starter_answers() -> None:
    assert is_starter(convo(), "U1") and not is_starter(convo(), "U2")
    assert gate(convo(), "U2", NOW, TTL) is Gate.NOT_STARTER


def test_a_profile_expires_only_after_the_ttl() -> None:
    assert not has_expired(convo(idle=TTL), NOW, TTL)  # exactly the TTL: still open
    assert has_expired(convo(idle=TTL + timedelta(seconds=1)), NOW, TTL)
    assert gate(convo(idle=timedelta(hours=25)), "U1", NOW, TTL) is Gate.EXPIRED


def test_a_finished_profile_takes_no_answers_and_does_not_expire() -> None:
    assert gate(convo(status="done", idle=timedelta(days=3)), "U1", NOW, TTL) is Gate.CLOSED
    assert gate(convo(status="expired"), "U1", NOW, TTL) is Gate.EXPIRED


def test_ownership_is_checked_before_expiry() -> None:
    assert gate(convo(idle=timedelta(days=3)), "U2", NOW, TTL) is Gate.NOT_STARTER


def test_an_open_profile_admits_its_starter() -> None:
    assert gate(convo(), "U1", NOW, TTL) is Gate.OPEN
