"""Tags are data, not mentions or channels (issue 34.3): a channel tag of <!channel>, a user id or a formula is not
where digests go (the item is filed in GPU_ADVISOR_DISCOVER_CHANNEL and the log says why); a channel id, with or
without its platform's prefix, still is."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.discover.aliyun import Aliyun
from bot.discover.run import discover
from bot.settings import Settings
from bot.state import Store
from bot.state.rentals import Rentals
from tests.support.fake_aliyun import ENV, fake_aliyun
from tests.support.state_template import migrated_state_db


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def test_a_tag_that_is_no_channel_id_files_the_item_in_the_default_channel(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with fake_aliyun() as fake:
        for name, tag in (("ping", "<!channel>"), ("user", "U0456"), ("formula", "=cmd|x"), ("fine", "#C0GPU7")):
            fake.add(name=name, tags={"ChatChannel": tag})
        settings = Settings(
            db=tmp_path / "bot.db", aliyun_regions="cn-hangzhou", aliyun_endpoint=fake.url, discover_channel="CDEF"
        )
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        caplog.set_level(logging.WARNING)
        discover(
            settings,
            store,
            "T1",
            datetime.now(UTC),
            offers=lambda gpu: [],
            cloud=Aliyun(("cn-hangzhou",), fake.url),
        )
    channels = {i.name: i.channel for i in Rentals(store).instances("T1")}
    assert channels == {"ping": "CDEF", "user": "CDEF", "formula": "CDEF", "fine": "C0GPU7"}
    assert "'<!channel>' is not a channel id" in caplog.text and "'U0456' is not a channel id" in caplog.text
