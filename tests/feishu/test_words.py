"""Feishu is told in its own words (issue 46): a tenant, not a workspace; a group chat, not a channel; an admin is
a tenant administrator or the chat's owner or a manager; a command is typed as it is, not as /gpu-advise …"""

from __future__ import annotations

import json

from bot.chat.message import plain
from bot.feishu.cards import card
from bot.feishu.words import said_in_feishu
from bot.text import Lang, t


def test_the_catalogues_slack_words_are_said_feishus_way() -> None:
    shown = said_in_feishu(t("digest.not_yours", Lang.EN, owner="<@ou_1>", name="train-1"))
    assert "workspace" not in shown and "tenant administrator, or this chat's owner or a manager" in shown
    zh = said_in_feishu(t("report.not_yours", Lang.ZH, setter="<@ou_1>"))
    assert "工作区" not in zh and "频道" not in zh and "群主" in zh
    usage = said_in_feishu(t("digest.track_usage", Lang.EN))
    assert "/gpu-advise" not in usage and "`track NAME gpu=A100-80GB" in usage


def test_names_are_never_changed() -> None:
    """Only whole phrases of the catalogue: an item called workspace-1 or channel.a stays as it is."""
    assert said_in_feishu("*workspace-1* and *this_channel* in `--channel C1`") == (
        "*workspace-1* and *this_channel* in `--channel C1`"
    )


def test_a_card_says_it_in_both_languages_feishus_way() -> None:
    made = card(lambda each: plain(t("digest.list_title", each), each), Lang.ZH)
    texts = json.dumps(made, ensure_ascii=False)
    assert "本企业" in texts and "this tenant" in texts and "workspace" not in texts and "工作区" not in texts
