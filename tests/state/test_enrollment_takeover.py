"""Another person's enrollment token never takes over an instance (issue 34.1): with the machine_id another
person's box enrolled with, it gets 409 machine_taken and nothing changes (her name, her agent's token, the uses
of the token); the owner's own new token, or the operator's (issued from the terminal), may get it back. On
SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from bot.state import Store
from bot.state.enrollment import Box, Enrollments, EnrollRefused, Grant
from bot.state.rentals import Rentals, token_hash
from bot.state.schema import enroll_tokens

T0 = datetime(2026, 12, 1, 2, tzinfo=UTC)
PRICE = {"unit": "hour", "price": 14.0, "currency": "CNY"}


@pytest.fixture
def store(db_target: str) -> Store:
    return Store(db_target)


def token_of(store: Store, owner: str, created_by: str | None = None) -> str:
    grant = Grant("T1", "C1", owner, None, 3, T0 + timedelta(days=7))
    return Enrollments(store).issue(grant, created_by=created_by or owner, now=T0)


def test_someone_elses_token_cannot_take_over_an_instance(store: Store) -> None:
    enrollments, rentals = Enrollments(store), Rentals(store)
    ana, ana_heartbeat = enrollments.enroll(token_of(store, "UANA"), Box("ana-box", "m1", "A100-80GB", 1), PRICE, T0)
    bob = token_of(store, "UBOB")
    with pytest.raises(EnrollRefused) as refused:
        enrollments.enroll(bob, Box("bob-box", "m1", "A100-80GB", 1), PRICE, T0 + timedelta(hours=1))
    assert (refused.value.status, refused.value.reason) == (409, "machine_taken")
    kept = rentals.by_token(ana_heartbeat)  # her agent's token still works
    assert kept is not None and (kept.id, kept.name, kept.owner) == (ana.id, "ana-box", "UANA")
    with store.reading() as conn:
        uses = conn.execute(select(enroll_tokens.c.uses_left).where(enroll_tokens.c.token_hash == token_hash(bob)))
        assert uses.scalar_one() == 3  # the refused enrollment spent no use


def test_the_owners_own_token_or_the_operators_gets_it_back(store: Store) -> None:
    enrollments, rentals = Enrollments(store), Rentals(store)
    ana, _ = enrollments.enroll(token_of(store, "UANA"), Box("ana-box", "m1", "A100-80GB", 1), PRICE, T0)
    again, heartbeat = enrollments.enroll(
        token_of(store, "UANA"), Box("ana-box", "m1", "A100-80GB", 1), PRICE, T0 + timedelta(hours=1)
    )
    assert again.id == ana.id
    operator = token_of(store, "UOPS", created_by="terminal")
    moved, moved_heartbeat = enrollments.enroll(operator, Box("rebuilt", "m1", "A100-80GB", 1), PRICE, T0)
    assert moved.id == ana.id and moved.name == "rebuilt"
    assert rentals.by_token(heartbeat) is None and rentals.by_token(moved_heartbeat) is not None


def test_someone_elses_token_cannot_take_over_an_instance_by_its_cloud_id(store: Store) -> None:
    """Issue 53.2: Bob's token with Alice's instance's provider_id (from another machine id) got 201 on her
    instance and revoked her agent's token: the path through what discovery found compared no owners."""
    enrollments, rentals = Enrollments(store), Rentals(store)
    cloud = "aws:i-0abc1234def567890"
    ana, ana_heartbeat = enrollments.enroll(
        token_of(store, "UANA"), Box("ana-box", "m1", "A100-80GB", 1, provider_id=cloud), PRICE, T0
    )
    with pytest.raises(EnrollRefused) as refused:
        enrollments.enroll(token_of(store, "UBOB"), Box("bob-box", "m2", "A100-80GB", 1, provider_id=cloud), PRICE, T0)
    assert (refused.value.status, refused.value.reason) == (409, "machine_taken")
    kept = rentals.by_token(ana_heartbeat)
    assert kept is not None and (kept.id, kept.owner, kept.name) == (ana.id, "UANA", "ana-box")
    operator = token_of(store, "UOPS", created_by="terminal")  # the operator may move it
    moved, _ = enrollments.enroll(operator, Box("rebuilt", "m2", "A100-80GB", 1, provider_id=cloud), PRICE, T0)
    assert moved.id == ana.id
