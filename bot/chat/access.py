"""Who may answer a profile, and until when: pure rules a unit test can call.

Only the person who started a profile answers it; a profile left unanswered longer than the
conversation TTL expires; a finished or expired profile takes no more answers.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from bot.state import Conversation


class Gate(StrEnum):
    OPEN = "open"  # the answer counts
    NOT_STARTER = "not_starter"  # someone else's profile
    EXPIRED = "expired"  # left unanswered too long
    CLOSED = "closed"  # already finished


def is_starter(convo: Conversation, user: str) -> bool:
    return user == convo.user


def has_expired(convo: Conversation, now: datetime, ttl: timedelta) -> bool:
    """An active profile whose last change is older than `ttl`, or one already marked expired."""
    return convo.status == "expired" or (convo.status == "active" and now - convo.updated_at > ttl)


def gate(convo: Conversation, user: str, now: datetime, ttl: timedelta) -> Gate:
    """May `user` answer `convo` now? Ownership first, then expiry, then whether it is still open."""
    if not is_starter(convo, user):
        return Gate.NOT_STARTER
    if has_expired(convo, now, ttl):
        return Gate.EXPIRED
    return Gate.OPEN if convo.status == "active" else Gate.CLOSED
