"""The board in a real browser (issue 48): headless Chromium (Debian's package, which `.ci/run` installs) opens a
board with data from the real serve, in both languages, at a phone's width and a laptop's; the page's text is read
through the browser's DOM dump, and a screenshot of each is taken. Where Chromium is missing the test says why it
skipped, except in CI (GPU_ADVISOR_TEST_CHROMIUM=required), where it fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.board.test_board import PUBLIC, rented, token
from tests.support.slack_harness import running_app

pytestmark = pytest.mark.e2e  # a browser start is seconds: the whole suite, not the fast loop

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars")  # fmt: skip


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if found is None:
        if os.environ.get("GPU_ADVISOR_TEST_CHROMIUM") == "required":
            pytest.fail("Chromium is required here (GPU_ADVISOR_TEST_CHROMIUM=required) and is not installed")
        pytest.skip("no Chromium on this machine (apt-get install chromium): the board was not seen in a browser")
    return found


def browse(browser: str, url: str, *extra: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", *extra, url],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize(("lang", "said"), [("en", ("Idle now", "Money billed while idle", "Prepaid balances")),
                                            ("zh", ("当前空闲", "空闲期间的计费", "预付余额"))])  # fmt: skip
def test_chromium_shows_the_board_in_each_language_on_a_phone_and_a_laptop(
    tmp_path: Path, lang: str, said: tuple[str, ...]
) -> None:
    browser = chromium()
    with running_app(tmp_path, public_url=PUBLIC) as h:
        rented(h)
        url = f"{h.base_url}/board/{token(h)}?lang={lang}"
        dom = browse(browser, url, "--dump-dom")
        assert all(words in dom for words in said), dom[:2000]
        assert "idle-a100" in dom and "Wang &lt;b&gt;Fang&lt;/b&gt;" in dom and "<svg" in dom
        for name, size in (("phone", "390,1600"), ("laptop", "1280,1400")):
            shot = tmp_path / f"board-{lang}-{name}.png"
            browse(browser, url, f"--screenshot={shot}", f"--window-size={size}")
            assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000, shot
            if os.environ.get("GPU_ADVISOR_BOARD_SHOTS"):  # to refresh docs/img: the folder to copy them to
                shutil.copy(shot, Path(os.environ["GPU_ADVISOR_BOARD_SHOTS"]) / shot.name)
