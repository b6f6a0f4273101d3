"""The rentals store on a real SQLite database: workspace scoping, token hashes, revocation, samples."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.state import Store
from bot.state.rentals import RentalError, Rentals, token_hash
from rules.samples import Sample

T0 = datetime(2026, 11, 30, 1, tzinfo=UTC)
FIELDS = {
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
}


@pytest.fixture
def rentals(db_target: str) -> Rentals:
    return Rentals(Store(db_target))


def test_a_token_finds_its_instance_until_it_is_released(rentals: Rentals) -> None:
    inst, token = rentals.track_instance("T1", "a", FIELDS)
    other, other_token = rentals.track_instance("T1", "b", FIELDS)
    assert token != other_token and token_hash(token) != token
    found = rentals.by_token(token)
    assert found is not None and found.id == inst.id
    assert rentals.by_token("not-a-token") is None
    rentals.release("T1", "a", T0 + timedelta(hours=3))
    assert rentals.by_token(token) is None  # released: its token is revoked
    found_other = rentals.by_token(other_token)
    assert found_other is not None and found_other.id == other.id


def test_one_workspace_never_sees_another(rentals: Rentals) -> None:
    rentals.track_instance("T1", "a", FIELDS)
    rentals.track_instance("T2", "a", FIELDS | {"owner": "U9"})
    assert [i.owner for i in rentals.instances("T2")] == ["U9"]
    with pytest.raises(RentalError) as err:
        rentals.track_storage(
            "T2",
            "s",
            {
                "size_gb": 1.0,
                "price_gb_month": 0.3,
                "currency": "CNY",
                "channel": "C1",
                "owner": "U1",
                "project": None,
                "created_at": T0,
            },
            instance="b",
        )
    assert err.value.code == "no_instance"
    assert rentals.storage("T2") == []  # nothing half-written
    with pytest.raises(RentalError) as err:
        rentals.release("T3", "a", T0)
    assert err.value.code == "no_instance"


def test_samples_come_back_in_time_order_from_the_window(rentals: Rentals) -> None:
    inst, _ = rentals.track_instance("T1", "a", FIELDS)
    samples = [Sample(T0 + timedelta(minutes=m), 0, 3.0, 1200, 81920) for m in (30, 0, 10, 20)]
    assert rentals.add_samples(inst.id, samples, [61.0, None, 60.0, 59.5]) == 4
    got = rentals.samples(inst.id, since=T0 + timedelta(minutes=10))
    assert [s.at for s in got] == [T0 + timedelta(minutes=m) for m in (10, 20, 30)]


@pytest.mark.parametrize("name", ["", "-x", "_x", "a b", "x" * 65, "a/b"])
def test_unusable_names_are_refused(rentals: Rentals, name: str) -> None:
    with pytest.raises(RentalError) as err:
        rentals.track_instance("T1", name, FIELDS)
    assert err.value.code == "bad_name"


@pytest.mark.parametrize("name", ["训练-1", "a", "node.42_b", "x" * 64])
def test_usable_names_are_kept(rentals: Rentals, name: str) -> None:
    assert rentals.track_instance("T1", name, FIELDS)[0].name == name


def test_quiet_since_is_the_first_sample_after_the_last_busy_one(rentals: Rentals) -> None:
    busy_then_quiet, _ = rentals.track_instance("T1", "a", FIELDS)
    always_quiet, _ = rentals.track_instance("T1", "b", FIELDS)
    busy_now, _ = rentals.track_instance("T1", "c", FIELDS)
    at = [T0 + timedelta(minutes=m) for m in range(0, 60, 10)]
    utils = {busy_then_quiet.id: [0, 90, 3, 0, 5, 0], always_quiet.id: [0] * 6, busy_now.id: [0, 0, 0, 0, 0, 40]}
    for inst, values in utils.items():
        rentals.add_samples(inst, [Sample(t, 0, u, 1, 2) for t, u in zip(at, values, strict=True)], [None] * 6)
    found = rentals.quiet_since([busy_then_quiet.id, always_quiet.id, busy_now.id], T0 - timedelta(hours=1))
    assert found == {busy_then_quiet.id: at[2], always_quiet.id: at[0]}  # busy at its last sample: not quiet
    window = rentals.recent([always_quiet.id], at[4])
    assert [s.at for s in window[always_quiet.id]] == at[4:]


def test_two_replicas_keeping_the_same_heartbeat_at_once_keep_each_sample_once(db_target: str) -> None:
    """Issue 20.5: two replicas receiving the same body at once kept 390 rows for 200 distinct samples."""
    import threading

    first = Rentals(Store(db_target))
    inst, _ = first.track_instance("T1", "box", FIELDS)
    at = datetime(2026, 11, 30, tzinfo=UTC)
    samples = [Sample(at + timedelta(minutes=m), g, 50, 100, 81920) for m in range(100) for g in (0, 1)]
    replicas = [Rentals(Store(db_target)) for _ in range(2)]
    start = threading.Barrier(2)
    kept: list[int] = []

    def receive(rentals: Rentals) -> None:
        start.wait()
        kept.append(rentals.add_samples(inst.id, samples, [None] * len(samples)))

    threads = [threading.Thread(target=receive, args=(r,)) for r in replicas]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(first.samples(inst.id, at - timedelta(days=1))) == 200 and sum(kept) == 200
