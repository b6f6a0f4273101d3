"""Start-up work kept between runs (bot/cache.py): built once, read back, rebuilt when its files change
or the cache is broken, and never needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cache import cached
from bot.cli.common import bundled_policy
from bot.text.catalogue import entries, read_entries
from rules.policy import load_policy


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_result_is_built_once_then_read_back(tmp_path: Path, cache: Path) -> None:
    source = tmp_path / "data.txt"
    source.write_text("one")
    calls: list[int] = []
    build = lambda: calls.append(1) or {"value": source.read_text()}  # noqa: E731
    assert cached("thing", [source], build) == {"value": "one"}
    assert cached("thing", [source], build) == {"value": "one"} and len(calls) == 1
    source.write_text("two")  # the file changed: a new key, built again
    assert cached("thing", [source], build) == {"value": "two"} and len(calls) == 2


def test_a_corrupt_cache_file_is_rebuilt_and_an_unwritable_folder_is_no_error(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "data.txt"
    source.write_text("x")
    cached("thing", [source], lambda: 1)
    [kept] = cache.iterdir()
    kept.write_bytes(b"not a pickle")
    assert cached("thing", [source], lambda: 2) == 2
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    monkeypatch.setenv("GPU_ADVISOR_CACHE_DIR", str(blocked))
    assert cached("thing", [source], lambda: 3) == 3


def test_the_cached_catalogue_and_policy_equal_what_their_files_say(cache: Path) -> None:
    entries.cache_clear()
    try:
        assert entries() == read_entries()
        assert {p.name.split("-")[0] for p in cache.iterdir()} == {"catalogue"}
    finally:
        entries.cache_clear()
    assert bundled_policy() == load_policy() == bundled_policy()  # built, then read back
    assert {p.name.split("-")[0] for p in cache.iterdir()} == {"catalogue", "policy"}
