"""An INSERT that says what to do when the row is there already: another replica may be keeping the same
heartbeat at the same moment, and the unique index, not a read before the write, decides which one keeps it.
SQLite and PostgreSQL both have ON CONFLICT; SQLAlchemy Core spells it per dialect."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite


def insert_for(conn: Any, table: Table) -> Any:
    """The dialect's INSERT of `table` (its .on_conflict_do_nothing() and .on_conflict_do_update() are alike)."""
    return (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(table)
