"""A price cache with the bundled rate card loaded, made once per test process and copied for each test whose bot
opens a fresh one. A new cache is made and filled on its first open (`open_cache`: the tables, then the bundled rate
card's rows read, checked and written), about 10 ms of CPU that every app and command a test started paid again;
a copy opens in about 1 ms. The copy is what the bot itself made (the template is filled by `open_cache` with the
bundled rate card alone), so a test on a copy starts where a user's cache is after its first command, and a test
that names a team rate card finds its inputs changed and has it loaded as a user would. The first open of an empty
cache stays tested where the price tests make their own.

Made per process, not kept between runs: the rate card's run is stamped with the time it was loaded, and a test
reads the prices' age."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path


@functools.cache
def _template() -> Path:
    from bot.price_book import build_sources, http_client, open_cache
    from bot.settings import Settings

    folder = Path(tempfile.mkdtemp(prefix="gpu-advisor-prices-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "prices.db"
    settings = Settings(db=path, azure_enabled=False, ecb_enabled=False)  # the bundled rate card alone
    with http_client(settings) as client:
        open_cache(settings, build_sources(settings, client)).close()
    for leftover in (folder / "prices.db-wal", folder / "prices.db-shm"):  # the last close checkpointed it
        leftover.unlink(missing_ok=True)
    return path


def filled_price_cache(path: Path) -> Path:
    """A price cache at `path` holding the bundled rate card (a copy of the template), unless a file is there."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_template(), path)
    return path
