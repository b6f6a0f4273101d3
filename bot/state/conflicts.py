"""An INSERT that says what to do when the row is there already: another replica may be keeping the same
heartbeat at the same moment, and the unique index, not a read before the write, decides which one keeps it.
SQLite and PostgreSQL both have ON CONFLICT; SQLAlchemy Core spells it per dialect.

Each dialect's package is imported when first asked for: `sqlalchemy.dialects.postgresql` imports every driver's
module with it (asyncpg's, and asyncio), about 20 ms of every command that reads the state on SQLite (issue 50)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from sqlalchemy import Table


def dialect_insert(dialect: str) -> Callable[[Table], Any]:
    """The INSERT of `dialect` ("postgresql", else SQLite's)."""
    name = "postgresql" if dialect == "postgresql" else "sqlite"
    insert: Callable[[Table], Any] = importlib.import_module(f"sqlalchemy.dialects.{name}").insert
    return insert


def insert_for(conn: Any, table: Table) -> Any:
    """The dialect's INSERT of `table` (its .on_conflict_do_nothing() and .on_conflict_do_update() are alike)."""
    return dialect_insert(conn.dialect.name)(table)
