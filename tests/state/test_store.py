from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import bot.state
from bot.state import Conversations, Inbox, Store, StoreUnavailable, migrate
from bot.state.schema import migrated_metadata
from tests.support.cli import ROOT
from tests.support.state_template import migrated_state_db


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_inbox_keeps_requests_until_done_and_refuses_a_repeat(db_target: str) -> None:
    store = Store(db_target)
    assert Inbox(store).enqueue("event:Ev1", "event", {"event_id": "Ev1"})
    assert not Inbox(store).enqueue("event:Ev1", "event", {"event_id": "Ev1"})  # Slack's retry
    assert [k for k, _, _ in Inbox(store).pending(timedelta(minutes=30))] == ["event:Ev1"]
    Inbox(store).done("event:Ev1")
    assert Inbox(store).pending(timedelta(minutes=30)) == []


def test_pending_ignores_work_older_than_the_window_and_prune_forgets_done_items(db_target: str) -> None:
    clock = Clock()
    store = Store(db_target, now=clock)
    Inbox(store).enqueue("old", "command", {})
    Inbox(store).enqueue("old-done", "command", {})
    Inbox(store).done("old-done")
    clock.now += timedelta(days=8)
    Inbox(store).enqueue("new", "command", {})
    assert [k for k, _, _ in Inbox(store).pending(timedelta(minutes=30))] == ["new"]
    assert Inbox(store).prune(timedelta(days=7)) == 1  # only the finished one
    assert not Inbox(store).enqueue("old", "command", {})  # unfinished items are never pruned


def test_conversation_survives_a_new_store_object(db_target: str) -> None:
    first = Store(db_target)
    convo = Conversations(first).create(team="T1", channel="C1", user="U1", lang="zh")
    convo.thread_ts, convo.answers = "1.2", {"duration": "10h"}
    Conversations(first).save(convo)
    again = Conversations(Store(db_target)).by_thread("T1", "C1", "1.2")
    assert again is not None and again.answers == {"duration": "10h"} and again.id == convo.id


def test_concurrent_writers_all_land(db_target: str) -> None:
    store = Store(db_target)

    def write(n: int) -> None:
        for i in range(25):
            Inbox(store).enqueue(f"k{n}-{i}", "command", {"n": n})

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(Inbox(store).pending(timedelta(hours=1))) == 200


def test_memory_database_is_refused() -> None:
    with pytest.raises(ValueError, match="needs a database file"):
        Store(":memory:")


OLD_SCHEMA = """
CREATE TABLE advisor_conversations (
    id TEXT PRIMARY KEY, team TEXT NOT NULL, channel TEXT NOT NULL, thread_ts TEXT, user TEXT NOT NULL,
    lang TEXT NOT NULL, answers TEXT NOT NULL DEFAULT '{}', step INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'active', question_ts TEXT, note TEXT, warned_others INTEGER NOT NULL DEFAULT 0,
    last_input TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE advisor_inbox (key TEXT PRIMARY KEY, kind TEXT NOT NULL, body TEXT NOT NULL, received_at TEXT NOT NULL,
    done_at TEXT);
CREATE TABLE advisor_user_locales (user TEXT PRIMARY KEY, locale TEXT, tz TEXT, fetched_at TEXT NOT NULL);
CREATE TABLE advisor_recommendations (id INTEGER PRIMARY KEY, team TEXT, user TEXT NOT NULL, choice TEXT NOT NULL,
    summary TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL);
INSERT INTO advisor_conversations (id, team, channel, thread_ts, user, lang, answers, created_at, updated_at)
    VALUES ('c1', 'T1', 'C1', '1.2', 'U1', 'en', '{"duration": "10h"}', '2026-11-29T08:00:00.000001+00:00',
            '2026-11-29T08:00:00.000001+00:00');
INSERT INTO advisor_inbox (key, kind, body, received_at) VALUES ('command:abc', 'command', '{"text": ""}',
    '2026-11-29T08:00:00.000001+00:00');
"""


def test_a_state_file_from_before_the_migrations_is_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "old.state.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(OLD_SCHEMA)
    clock = Clock()
    store = Store(path, now=clock)
    convo = Conversations(store).by_thread("T1", "C1", "1.2")
    assert convo is not None and convo.answers == {"duration": "10h"} and convo.values == {}
    assert convo.updated_at == datetime(2026, 11, 29, 8, 0, 0, 1, tzinfo=UTC)
    assert [k for k, _, _ in Inbox(store).pending(timedelta(days=2))] == ["command:abc"]
    convo.values = {"duration": {"hours": 10.0, "bucket": None, "above": False}}
    Conversations(store).save(convo)
    assert Conversations(store).get("c1").values["duration"]["hours"] == 10.0  # type: ignore[union-attr]


def test_the_migrations_build_exactly_the_schema_the_code_queries(empty_db_target: str) -> None:
    from alembic.autogenerate import compare_metadata  # Alembic's autogenerate: imported by this test alone
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    store = Store(empty_db_target)
    with store.reading() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), migrated_metadata())
        version = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
        # compare_metadata reads the connection's default schema: a test's own schema on PostgreSQL
    assert differences == []
    assert version == ScriptDirectory(str(Path(bot.state.__file__).parent / "migrations")).get_current_head()
    with store.reading() as conn:  # both read without Alembic
        assert migrate.head() == version and migrate.current(conn) == version


OPENS = """
import sys
from bot.state import Store
Store(sys.argv[1]).close()
print(sorted(m for m in sys.modules if m.split(".")[0] == "alembic"))
"""


@pytest.mark.e2e  # starts a process
def test_a_current_store_opens_without_importing_alembic(db_target: str) -> None:
    """Alembic is 11.6 MB of each of serve's processes and a tenth of a second of every command's start: a store
    at the newest revision (every start but the first after an upgrade) is opened without it."""
    opened = subprocess.run([sys.executable, "-c", OPENS, db_target], cwd=ROOT, capture_output=True, text=True)
    assert opened.returncode == 0 and opened.stdout.strip() == "[]", opened.stderr


SQLITE_OPENS = """
import sys
from bot.state import Store
from bot.state.rentals import Rentals
Rentals(Store(sys.argv[1])).instances("T1")
print(sorted(m for m in sys.modules if m.startswith("sqlalchemy.dialects.postgresql")))
"""


@pytest.mark.e2e  # starts a process
def test_a_sqlite_store_never_imports_postgresqls_dialect(tmp_path: Path) -> None:
    """The partial unique name indexes (0036) declared with the tables made SQLAlchemy import its PostgreSQL dialect,
    19 modules, in every command reading a SQLite state: they are declared apart (bot/state/schema.py)."""
    path = str(migrated_state_db(tmp_path / "state.db"))
    opened = subprocess.run([sys.executable, "-c", SQLITE_OPENS, path], cwd=ROOT, capture_output=True, text=True)
    assert opened.returncode == 0 and opened.stdout.strip() == "[]", opened.stdout + opened.stderr


def test_a_database_url_and_a_path_name_the_same_store(tmp_path: Path) -> None:
    by_path = Store(migrated_state_db(tmp_path / "s.db"))  # the migrations are tested above
    Inbox(by_path).enqueue("k", "command", {})
    by_url = Store(f"sqlite:///{tmp_path / 's.db'}")
    assert [k for k, _, _ in Inbox(by_url).pending(timedelta(hours=1))] == ["k"]


def test_an_unusable_database_is_named_with_the_reason(tmp_path: Path) -> None:
    bad = tmp_path / "notes.db"
    bad.write_text("not a database")
    with pytest.raises(StoreUnavailable, match=f"cannot use the state database {bad}: file is not a database"):
        Store(bad)


WRITER = """
import sys
from bot.state import Inbox, Store
store = Store(sys.argv[1])
for i in range(60):
    Inbox(store).enqueue(f"{sys.argv[2]}-{i}", "command", {"i": i})
    Inbox(store).done(f"{sys.argv[2]}-{i}")
"""


@pytest.mark.e2e  # starts a process
def test_two_processes_writing_at_once_both_land(db_target: str) -> None:
    Store(db_target)  # migrated once, as serve does at start-up
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, db_target, name], cwd=ROOT, stderr=subprocess.PIPE, text=True)
        for name in ("a", "b")
    ]
    errors = [w.communicate(timeout=60)[1] for w in writers]
    assert [w.returncode for w in writers] == [0, 0], errors
    store = Store(db_target)
    with store.reading() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM advisor_inbox WHERE done_at IS NOT NULL").scalar() == 120
