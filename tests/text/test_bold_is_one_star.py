"""The catalogue writes bold as the neutral text does, `*word*` (bot/text/spans.py: each chat renders it its own
way). Six item answers wrote `**word**`, Feishu's and DingTalk's markdown, which Slack showed with its stars."""

from __future__ import annotations

import re

from bot.text.catalogue import entries


def test_no_sentence_writes_bold_with_two_stars() -> None:
    doubled = {
        f"{key} ({lang.value})": text
        for key, texts in entries().items()
        for lang, text in texts.items()
        if "**" in re.sub(r"`[^`]*`", "", text)  # a command in a code span may have its own stars
    }
    assert not doubled, doubled
