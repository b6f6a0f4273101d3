"""Migration 0036: a name is unique among the instances not released and the storage not deleted, so a box rented
again under its old name is tracked (it was "already tracked"), on SQLite and PostgreSQL; going back renames the
released rows that share a name, `NAME~ID`, and puts the unique constraint back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from bot.state import Store
from bot.state.migrate import downgrade, upgrade
from bot.state.rentals import RentalError, Rentals
from bot.state.schema import rental_instances, rental_storage

T0 = datetime(2026, 12, 1, 1, tzinfo=UTC)
BOX = {"channel": "C1", "owner": "U1", "gpu": "A800-80GB", "cards": 8, "unit": "hour", "price": 60.0}
DISK = {"channel": "C1", "owner": "U1", "size_gb": 500.0, "price_gb_month": 0.7, "currency": "CNY"}


def _box(rentals: Rentals, started: datetime, **more: object) -> int:
    made, _ = rentals.track_instance("T1", "训练机", BOX | {"currency": "CNY", "started_at": started} | more)
    return made.id


def test_a_name_released_is_free_and_the_running_one_is_the_one_named(db_target: str) -> None:
    rentals = Rentals(Store(db_target))
    first = _box(rentals, T0)
    with pytest.raises(RentalError, match="instance_exists"):  # two running under one name: still refused
        _box(rentals, T0)
    rentals.release("T1", "训练机", T0 + timedelta(days=1), "U1")
    second = _box(rentals, T0 + timedelta(days=2), price=50.0)
    found = rentals.instance("T1", "训练机")
    assert found is not None and found.id == second and found.price == 50.0
    rentals.set_whose("T1", "训练机", project="llm")  # changes the running one, never the released
    assert {i.id: i.project for i in rentals.instances("T1")} == {first: None, second: "llm"}
    rentals.release("T1", "训练机", T0 + timedelta(days=3), "U1")
    last = rentals.instance("T1", "训练机")
    assert last is not None and last.id == second  # none running: the one released last
    with pytest.raises(RentalError, match="already_released"):
        rentals.release("T1", "训练机", T0 + timedelta(days=4), "U1")


def test_a_box_the_bot_released_does_not_come_back_over_a_box_tracked_under_its_name(db_target: str) -> None:
    rentals = Rentals(Store(db_target))
    stopped = _box(rentals, T0)
    assert rentals.release_by(stopped, T0 + timedelta(hours=1), "bot")
    newer = _box(rentals, T0 + timedelta(hours=2))
    assert not rentals.unrelease(stopped)  # its name is taken: it stays released, no integrity error
    assert [i.id for i in rentals.instances("T1", active_only=True)] == [newer]


def test_storage_deleted_frees_its_name(db_target: str) -> None:
    rentals = Rentals(Store(db_target))
    rentals.track_storage("T1", "数据盘", DISK | {"created_at": T0}, None)
    rentals.delete_storage("T1", "数据盘", T0 + timedelta(days=1))
    again = rentals.track_storage("T1", "数据盘", DISK | {"created_at": T0 + timedelta(days=2), "size_gb": 200.0}, None)
    found = rentals.storage_named("T1", "数据盘")
    assert found is not None and found.id == again.id and found.size_gb == 200.0


def test_down_to_0035_renames_the_released_rows_that_share_a_name_and_up_again(db_target: str) -> None:
    store = Store(db_target)
    rentals = Rentals(store)
    gone = _box(rentals, T0)
    rentals.release("T1", "训练机", T0 + timedelta(days=1), "U1")
    running = _box(rentals, T0 + timedelta(days=2))
    rentals.track_storage("T1", "数据盘", DISK | {"created_at": T0}, None)
    with store.engine.begin() as conn:
        downgrade(conn, "0035")
        names = dict(conn.execute(select(rental_instances.c.id, rental_instances.c.name)).all())
        assert names == {gone: f"训练机~{gone}", running: "训练机"}
        assert conn.execute(select(rental_storage.c.name)).scalars().all() == ["数据盘"]  # alone: as it was
        upgrade(conn)
    found = Rentals(Store(db_target)).instance("T1", "训练机")
    assert found is not None and found.id == running


def test_rename_changes_the_running_one_or_the_kept_disk_and_refuses_a_name_in_use(db_target: str) -> None:
    rentals = Rentals(Store(db_target))
    first = _box(rentals, T0)
    rentals.release("T1", "训练机", T0 + timedelta(days=1), "U1")
    second = _box(rentals, T0 + timedelta(days=2))
    rentals.track_storage("T1", "数据盘", DISK | {"created_at": T0}, None)
    renamed = rentals.rename("T1", "训练机", "训练机A")  # the running one; the released keeps its name
    assert renamed.id == second and {i.id: i.name for i in rentals.instances("T1")} == {
        first: "训练机",
        second: "训练机A",
    }
    with pytest.raises(RentalError, match="name_taken"):  # a kept disk's name: either kind is refused
        rentals.rename("T1", "训练机A", "数据盘")
    assert rentals.rename("T1", "数据盘", "ckpt").name == "ckpt" and rentals.storage_named("T1", "数据盘") is None
    with pytest.raises(RentalError, match="already_released"):
        rentals.rename("T1", "训练机", "旧机器")
    with pytest.raises(RentalError, match="no_item"):
        rentals.rename("T1", "没有", "x")
    with pytest.raises(RentalError, match="bad_name"):
        rentals.rename("T1", "训练机A", "a b")
