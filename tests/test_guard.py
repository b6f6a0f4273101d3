"""The e2e guard of tests/conftest.py: a process the test starts is seen (so an unmarked test that starts one
fails), a process a library starts for its own purposes is not (issue 28.2: matplotlib's fc-list, building its
font cache on a clean machine, failed an unmarked chart test)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests import conftest as guard


def test_a_process_a_library_starts_for_itself_is_not_the_tests() -> None:
    from matplotlib import font_manager

    if shutil.which("fc-list") is None:
        pytest.skip("no fc-list on this machine: matplotlib starts no process to list its fonts")
    guard._started.clear()
    fonts = font_manager._get_fontconfig_fonts.__wrapped__()  # what a clean machine's first chart runs
    assert fonts and guard._started == []


@pytest.mark.e2e  # starts a process
def test_a_process_the_test_starts_is_seen() -> None:
    guard._started.clear()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    assert len(guard._started) == 1 and guard._started[0].startswith("a process (")
