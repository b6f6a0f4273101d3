"""The price cache's connection (PriceDb), and sqlite_utils' `Database` over it for writing, imported when first
written and without numpy and pandas.

Reads are plain SQL on the connection: a quote, `prices list` and a source's status only read, and importing
sqlite_utils with the entry-point scan its Database runs for its plugins was about 45 ms of every such command's
start (30 ms the import, 14 ms the scan: issue 50), for queries it would have spelt the same. Writes (a refresh's
rows, the cache's tables) go through sqlite_utils' Database, made over the same connection on first use and without
running its plugins (this cache registers no SQL function a plugin could provide).

sqlite_utils imports numpy and pandas when it is imported, if they are installed (numpy comes with matplotlib), only
to map their scalar types to column types; this project never inserts a numpy or pandas value. That import was about
90 ms and 20 MB of every process that wrote the price cache. So both are hidden from that one import, which then
finds neither, and are importable again right after, as before (matplotlib imports numpy when a chart is drawn).
Nothing else is changed in sqlite_utils."""

from __future__ import annotations

import sqlite3
import sys
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlite_utils import Database

HIDDEN = ("numpy", "pandas")


def _load() -> type[Database]:
    hidden = [name for name in HIDDEN if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # an import of it raises ImportError
    try:
        from sqlite_utils import Database as loaded
    finally:
        for name in hidden:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return loaded


class PriceDb:
    """One connection to the price cache: `rows` and `execute` read it; `utils` writes it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    @cached_property
    def utils(self) -> Database:
        """sqlite_utils' Database over this connection (its tables, inserts and upserts)."""
        return _load()(self.conn, execute_plugins=False)

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def rows(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        """The rows of a query, each a dict by column name."""
        cursor = self.conn.execute(sql, params)
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor]

    def close(self) -> None:
        self.conn.close()


__all__ = ["PriceDb"]
