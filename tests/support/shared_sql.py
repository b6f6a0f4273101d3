"""One compiled-SQL cache for every engine a test process opens, instead of one per engine.

SQLAlchemy compiles a statement once per engine and keeps it in that engine's cache, under a key that holds the
dialect object itself. serve opens one engine a process, so it compiles each statement once. A test process opens a
store, and so an engine, for almost every test: about 10,000 compilations a fast loop for about 1,200 distinct
statements, 4.5 s of its 57 s of CPU on 2 cores (measured 2026-12-06, `_compile_w_cache` counted per worker).

Here every engine of the process looks its statements up in one cache, keyed by what decides the SQL a dialect
writes instead of by the dialect object: its class, its database's version and its parameter style. The SQL
executed is what each engine would have compiled itself; only the compiling is shared. Tests only: nothing in
bot/ sees it, and no product process opens engines this way."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, event


def _same_sql(key: Any) -> Any:
    """The cache key with its dialect replaced by what makes two dialects write the same SQL."""
    dialect = key[0]
    return (type(dialect), dialect.server_version_info, dialect.paramstyle, *key[1:])


class SharedCompiled(dict[Any, Any]):
    """The compiled cache SQLAlchemy reads (`get`) and fills (`[key] = compiled`), shared across dialect objects.
    A dict (SQLAlchemy's `compiled_cache` takes one), not its LRUCache: a test process's ~1,200 distinct statements
    never fill it, and the LRU's bookkeeping on every look-up cost about 0.3 s of a fast loop's CPU. Past `limit`
    entries, a statement is compiled and not kept."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def get(self, key: Any, default: Any = None) -> Any:
        return super().get(_same_sql(key), default)

    def __setitem__(self, key: Any, value: Any) -> None:
        if len(self) < self.limit:
            super().__setitem__(_same_sql(key), value)


_SHARED = SharedCompiled(5000)


@event.listens_for(Engine, "engine_connect")
def _share(connection: Connection) -> None:
    # each connection's statements are looked up in the shared cache (SQLAlchemy's `compiled_cache` option)
    connection.execution_options(compiled_cache=_SHARED)
