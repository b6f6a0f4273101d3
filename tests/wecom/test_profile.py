"""A profile in WeCom, end to end through the official AI-bot SDK and a fake WeCom: a direct `advise` starts the
five questions as cards; clicks and typed replies answer them; the recommendation shows the costs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.chat.ids import Action
from tests.support.fake_wecom import BOT_ID
from tests.support.logs import warnings
from tests.support.wecom_harness import running_wecom

ANA, BOB = "ana.li", "bob.wang"


def _action(button: dict[str, str]) -> str:
    return str(json.loads(button["key"])["a"])


def test_a_direct_advise_asks_with_cards_answered_by_clicks_and_words(tmp_path: Path) -> None:
    with running_wecom(tmp_path, lang="en") as h:
        fake = h.fake
        fake.message("advise", ANA)
        root, first = fake.wait_for(lambda: len(fake.to(ANA)) >= 2 and fake.to(ANA))
        assert "a few questions here" in root.text and "thread" not in root.text
        assert fake.replies == 1  # the answer's first message replies to the message (the SDK's reply)
        assert "@mention me" in first.text and len(first.buttons) <= 6
        fake.click(first, first.button("LoRA"), ANA)
        fake.wait_for(lambda: first.updates and len(fake.to(ANA)) > 2)
        assert "LoRA" in first.text  # the clicked card now says what was answered, within WeCom's 5 s
        fake.message("about 10 hours", ANA)  # a typed reply answers the open question
        count = len(fake.sent)
        fake.wait_for(lambda: len(fake.sent) > count)
        for _ in range(8):
            last = fake.to(ANA)[-1]
            if "Recommendation" in last.text:
                break
            answers = [b for b in last.buttons if _action(b).startswith("answer:") or _action(b) == Action.SKIP]
            assert answers, [s.text for s in fake.to(ANA)[-3:]]
            count = len(fake.sent)
            fake.click(last, answers[0], ANA)
            fake.wait_for(lambda count=count: len(fake.sent) > count)
        recommendation = fake.to(ANA)[-1]
        assert "Recommendation" in recommendation.text and "/h" in recommendation.text
        assert any(_action(b) == Action.CHANGE for b in recommendation.buttons)
        assert fake.refused_updates == 0


def test_analyze_then_a_capture_sent_as_a_file_answers_duration_and_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from tests.slack.test_captures import whole_run

    with running_wecom(tmp_path, lang="en", capture_max_bytes=20_000) as h:
        fake = h.fake
        h.settled(fake.message("analyze", ANA))
        assert any("Upload a capture" in s.text for s in fake.to(ANA))
        h.settled(fake.file_message("capture.csv", whole_run(), ANA))  # encrypted, as WeCom keeps files
        summary = next(s for s in fake.to(ANA) if "Continuity" in s.text)
        assert "dur=2.5h" in summary.text and "mem=40/80" in summary.text
        found = h.deps.conversations.open_for(f"wecom:{BOT_ID}", ANA, ANA)  # the profile goes on
        assert found is not None and found.answers["duration"] == "2.5h" and found.answers["memory"] == "40/80"
        h.settled(fake.file_message("big.csv", whole_run(200) * 4, ANA))
        assert any("larger than" in s.text for s in fake.to(ANA))
    assert warnings(caplog) == []  # no chart drawn for a chat that takes no files, none said not sent


def test_a_voice_message_is_answered_with_what_the_robot_reads(tmp_path: Path) -> None:
    with running_wecom(tmp_path, lang="en") as h:
        h.settled(h.fake.message("", BOB, kind={"msgtype": "voice", "voice": {"content": "十个小时"}}))
        [said] = h.fake.to(BOB)
        assert "I read typed words and capture files" in said.text and h.fake.replies == 1
