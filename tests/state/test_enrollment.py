"""Enrollment tokens on a real database (SQLite, and PostgreSQL where it runs): hashes only, uses, expiry,
the same machine getting its instance back, a taken name, one workspace never enrolling into another."""

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


def issue(
    store: Store,
    *,
    uses: int = 3,
    team: str = "T1",
    expires: timedelta = timedelta(days=7),
    project: str | None = "llm",
) -> str:
    return Enrollments(store).issue(Grant(team, "C1", "U1", project, uses, T0 + expires), created_by="U1", now=T0)


def test_only_the_hash_is_kept_and_a_box_becomes_an_agent_instance(store: Store) -> None:
    token = issue(store)
    with store.reading() as conn:
        [row] = conn.execute(select(enroll_tokens)).all()
    assert row.token_hash == token_hash(token) and token not in str(tuple(row))
    made, heartbeat = Enrollments(store).enroll(
        token, Box("gpu-box-1", "m1", "A100-80GB", 2, "aws:i-0abc12345678"), PRICE, T0
    )
    assert (made.team, made.channel, made.owner, made.project) == ("T1", "C1", "U1", "llm")
    assert (made.gpu, made.cards, made.price, made.source, made.provider_id) == (
        "A100-80GB",
        2,
        14.0,
        "agent",
        "aws:i-0abc12345678",
    )
    found = Rentals(store).by_token(heartbeat)
    assert found is not None and found.id == made.id


def test_the_same_machine_gets_its_instance_back_with_a_fresh_token(store: Store) -> None:
    token = issue(store)
    first, old = Enrollments(store).enroll(token, Box("box", "m1", "A100-80GB", 1), PRICE, T0)
    again, new = Enrollments(store).enroll(token, Box("box", "m1", "A100-80GB", 1), PRICE, T0 + timedelta(hours=1))
    rentals = Rentals(store)
    assert again.id == first.id and new != old
    assert rentals.by_token(old) is None  # the old token is revoked
    assert rentals.by_token(new) is not None
    assert [i.name for i in rentals.instances("T1")] == ["box"]


def test_another_machine_asking_for_a_taken_name_is_refused_with_the_name(store: Store) -> None:
    token = issue(store)
    Enrollments(store).enroll(token, Box("box", "m1", "A100-80GB", 1), PRICE, T0)
    with pytest.raises(EnrollRefused) as refused:
        Enrollments(store).enroll(token, Box("box", "m2", "A100-80GB", 1), PRICE, T0)
    assert (refused.value.status, refused.value.reason, refused.value.params) == (409, "name_taken", {"name": "box"})
    assert Enrollments(store).grant(token, T0).uses_left == 2  # the refused one spent no use


def test_expired_used_up_and_unknown_tokens_are_refused(store: Store) -> None:
    once = issue(store, uses=1)
    Enrollments(store).enroll(once, Box("a", "m1", "A100-80GB", 1), PRICE, T0)
    short = issue(store, expires=timedelta(minutes=30))
    cases = [
        (once, "used_up_token", T0),
        (short, "expired_token", T0 + timedelta(minutes=31)),
        ("never-issued", "unknown_token", T0),
    ]
    for token, reason, at in cases:
        with pytest.raises(EnrollRefused) as refused:
            Enrollments(store).enroll(token, Box("b", "m2", "A100-80GB", 1), PRICE, at)
        assert (refused.value.status, refused.value.reason) == (401, reason)
    assert [i.name for i in Rentals(store).instances("T1")] == ["a"]


def test_a_token_enrolls_into_its_own_workspace_only(store: Store) -> None:
    Rentals(store).track_instance(
        "T1",
        "box",
        {
            "gpu": "A100-80GB",
            "cards": 1,
            "share": None,
            "unit": "day",
            "price": 400.0,
            "currency": "CNY",
            "channel": "C1",
            "owner": "U1",
            "project": None,
            "started_at": T0,
        },
    )
    theirs = issue(store, team="T2")
    made, _ = Enrollments(store).enroll(theirs, Box("box", "m1", "A100-80GB", 1), PRICE, T0)
    assert made.team == "T2" and [i.source for i in Rentals(store).instances("T1")] == ["track"]


def test_an_unknown_card_is_kept_as_named_without_a_price(store: Store) -> None:
    made, _ = Enrollments(store).enroll(
        issue(store),
        Box("box", "m1", "Tesla V100-SXM2-16GB", 8),
        {"unit": "hour", "price": None, "currency": "CNY"},
        T0,
    )
    assert (made.gpu, made.cards, made.price) == ("Tesla V100-SXM2-16GB", 8, None)


def test_a_slack_request_redone_replaces_the_token_it_made(store: Store) -> None:
    grant = Grant("T1", "C1", "U1", None, 5, T0 + timedelta(days=7))
    first = Enrollments(store).issue(grant, created_by="U1", now=T0, request_key="cmd:abc")
    second = Enrollments(store).issue(grant, created_by="U1", now=T0, request_key="cmd:abc")
    with pytest.raises(EnrollRefused):
        Enrollments(store).grant(first, T0)
    assert Enrollments(store).grant(second, T0).uses_left == 5
