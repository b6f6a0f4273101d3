"""sqlite_utils' `Database`, imported without numpy and pandas.

sqlite_utils imports numpy and pandas when it is imported, if they are installed (numpy comes with matplotlib), only
to map their scalar types to column types; this project never inserts a numpy or pandas value. That import was about
90 ms and 20 MB of every process that opens the price cache (`quote`, `list`, serve's work process: issue 50). So
both are hidden from that one import, which then finds neither, and are importable again right after, as before
(matplotlib imports numpy when a chart is drawn). Nothing else is changed in sqlite_utils."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

HIDDEN = ("numpy", "pandas")


def _load() -> type:
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


if TYPE_CHECKING:
    from sqlite_utils import Database
else:
    Database = _load()

__all__ = ["Database"]
