"""The state's own secrets (issue 48): made once, kept in the state, the same for every replica."""

from __future__ import annotations

import secrets
from datetime import datetime
from weakref import WeakKeyDictionary

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from bot.state.schema import state_secrets
from bot.state.store import Store

BOARD_LINKS = "board_links"  # the key the board's links are signed with


_KNOWN: WeakKeyDictionary[Store, dict[str, str]] = WeakKeyDictionary()  # a secret never changes once made


def state_secret(store: Store, name: str, now: datetime) -> str:
    """The secret `name`, made (256 random bits) the first time it is asked for; two processes asking at once
    get the same one: the first insert wins and the other reads it. Read once a process (a digest to 500 channels
    signs 500 links)."""
    known = _KNOWN.setdefault(store, {})
    if name not in known:
        known[name] = _read_or_make(store, name, now)
    return known[name]


def _read_or_make(store: Store, name: str, now: datetime) -> str:
    c = state_secrets.c
    with store.reading() as conn:
        found = conn.execute(select(c.value).where(c.name == name)).scalar()
    if found is not None:
        return str(found)
    try:
        with store.writing() as conn:
            conn.execute(insert(state_secrets).values(name=name, value=secrets.token_urlsafe(32), created_at=now))
    except IntegrityError:
        pass  # another process made it first: theirs is the one
    with store.reading() as conn:
        return str(conn.execute(select(c.value).where(c.name == name)).scalar_one())
