"""The tests' one compiled-SQL cache (tests/support/shared_sql.py): two stores' engines compile a statement once and
each still reads its own database; dialects that write different SQL keep apart."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import column, select, table, text
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite

from bot.state.store import Store
from tests.support.shared_sql import _SHARED, _same_sql
from tests.support.state_template import migrated_state_db

_NOTES = table("shared_sql_notes", column("said"))


def _store_saying(path: Path, said: str) -> Store:
    store = Store(migrated_state_db(path))
    with store.writing() as conn:
        conn.execute(text("CREATE TABLE shared_sql_notes (said TEXT)"))
        conn.execute(text("INSERT INTO shared_sql_notes VALUES (:said)"), {"said": said})
    return store


def test_two_engines_compile_a_statement_once_and_each_reads_its_own_rows(tmp_path: Path) -> None:
    first, second = _store_saying(tmp_path / "a.db", "first"), _store_saying(tmp_path / "b.db", "second")
    assert first.engine is not second.engine and first.engine.dialect is not second.engine.dialect
    query = select(_NOTES.c.said).where(_NOTES.c.said != "never said")
    with first.reading() as conn:
        assert conn.execute(query).scalars().all() == ["first"]
    compiled = len(_SHARED)
    with second.reading() as conn:
        assert conn.execute(query).scalars().all() == ["second"]
    assert len(_SHARED) == compiled  # found in the cache, not compiled for the second engine
    for store in (first, second):
        with store.reading() as conn:
            assert conn.get_execution_options()["compiled_cache"] is _SHARED


def test_dialects_that_write_different_sql_have_different_keys() -> None:
    key = ("statement", (), False, False)
    lite, pg = SQLiteDialect_pysqlite(), PGDialect_psycopg()  # type: ignore[no-untyped-call]
    assert _same_sql((lite, *key)) == _same_sql((SQLiteDialect_pysqlite(), *key))
    assert _same_sql((lite, *key)) != _same_sql((pg, *key))
    older = SQLiteDialect_pysqlite()
    older.server_version_info = (3, 30, 0)
    assert _same_sql((lite, *key)) != _same_sql((older, *key))
