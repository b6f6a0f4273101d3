"""Items found in AWS for a Feishu tenant: the ChatChannel tag names its group chat (`feishu:oc_…`), the Owner
tag's address is looked up in the tenant's contacts (batch_get_id), and the tag's old name SlackChannel still
files an item."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.discover.run import discover
from bot.feishu.chat import FeishuChat
from bot.feishu.sdk import OpenApi
from bot.settings import Settings
from bot.state import Store
from bot.state.rentals import Rentals
from bot.text import Lang
from tests.support.aws import ec2, launch, moto_server
from tests.support.fake_feishu import fake_feishu
from tests.support.state_template import migrated_state_db

TEAM, CHAT, ANA = "feishu:2ed263bf32cf1651", "oc_" + "5ad1" * 8, "ou_" + "7d8a" * 8


def test_feishu_tags_file_an_item_under_the_group_and_the_owner_found_by_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with moto_server(monkeypatch) as url, fake_feishu() as fake:
        fake.users[ANA] = {"open_id": ANA, "email": "ana@example.com"}
        client = ec2(url)
        new = launch(client, "g5.xlarge", {"Owner": "ana@example.com", "ChatChannel": f"feishu:{CHAT}"})
        old = launch(client, "g4dn.xlarge", {"Owner": "nobody@example.com", "SlackChannel": "oc_legacy"})
        settings = Settings(
            db=tmp_path / "bot.db",
            aws_regions="us-east-1",
            aws_endpoint_url=url,
            azure_enabled=False,
            ecb_enabled=False,
            discover_channel="oc_default",
        )
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        chat = FeishuChat(OpenApi("cli_a1b2c3d4e5f6", fake.app_secret, fake.base_url), Lang.ZH)
        report = discover(
            settings, store, TEAM, datetime.now(UTC), offers=lambda _gpu: [], find_owner=chat.find_by_email
        )
        assert report.problems == {}
        found = {i.provider_id: i for i in Rentals(store).instances(TEAM)}
        assert (found[f"aws:{new}"].channel, found[f"aws:{new}"].owner) == (CHAT, ANA)
        assert (found[f"aws:{old}"].channel, found[f"aws:{old}"].owner) == ("oc_legacy", "")
        [lookup, *_] = fake.of("contact.users.batch_get_id")
        assert lookup.query["user_id_type"] == "open_id" and lookup.body["emails"] == ["ana@example.com"]
