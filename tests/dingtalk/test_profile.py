"""A profile in DingTalk, end to end through the official SDKs and a fake DingTalk: a direct `advise` starts the
five questions as cards; buttons and typed replies answer them; the recommendation shows the costs."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.chat.ids import Action
from tests.support.dingtalk_harness import running_dingtalk
from tests.support.fake_dingtalk import CORP, Card
from tests.support.logs import warnings

ANA, BOB = "manager4521", "staff0917"


def _action(button: dict[str, str]) -> str:
    import json

    return str(json.loads(button["value"])["action"])


def test_a_direct_advise_asks_with_cards_answered_by_buttons_and_words(tmp_path: Path) -> None:
    with running_dingtalk(tmp_path, lang="en") as h:
        fake, dm = h.fake, f"dtv1.card//IM_ROBOT.{ANA}"
        assert fake.message("advise", ANA) == {}
        root, first = fake.wait_for(lambda: len(fake.in_space(dm)) >= 2 and fake.in_space(dm))
        assert "a few questions here" in root.params["markdown"] and "thread" not in root.params["markdown"]
        assert "@mention me" in first.params["tips"]  # how to answer in words, on the first question
        answered = fake.press(first, first.button("LoRA"), ANA)  # the card as answered, in the acknowledgement
        assert answered == {} or "LoRA" in answered["cardData"]["cardParamMap"]["tips"]
        seen = fake.wait_for(lambda: len(fake.in_space(dm)) > 2 and fake.in_space(dm))
        assert "LoRA" in seen[1].params["markdown"] or seen[1].updates  # the answered card says so
        question = seen[-1]
        assert "how long" in question.params["markdown"].lower() or "run" in question.params["markdown"].lower()
        fake.message("about 10 hours", ANA)  # a typed reply answers the open question
        fake.wait_for(lambda: len(fake.in_space(dm)) > len(seen))
        for _ in range(8):  # the usual first answer of each question, or Skip, until the recommendation
            last: Card = fake.in_space(dm)[-1]
            if (last.params.get("title") or "").startswith("Recommendation"):
                break
            answers = [b for b in last.buttons if _action(b).startswith("answer:") or _action(b) == Action.SKIP]
            count = len(fake.cards)
            fake.press(last, answers[0], ANA)
            fake.wait_for(lambda count=count: len(fake.cards) > count)
        recommendation = fake.in_space(dm)[-1]
        assert recommendation.params["title"].startswith("Recommendation")
        assert "/h" in recommendation.params["markdown"] or "/hour" in recommendation.params["markdown"]
        assert any(_action(b) == Action.CHANGE for b in recommendation.buttons)


def test_a_press_by_someone_else_is_refused_to_them_alone(tmp_path: Path) -> None:
    with running_dingtalk(tmp_path, lang="en") as h:
        fake, group = h.fake, "cidGroupA1b2C3+d4/e5=="
        fake.message("advise", ANA, group=group)
        space = f"dtv1.card//IM_GROUP.{group}"
        _root, first = fake.wait_for(lambda: len(fake.in_space(space)) >= 2 and fake.in_space(space))
        fake.press(first, first.button("LoRA"), BOB)
        [told] = fake.wait_for(lambda: fake.in_space(f"dtv1.card//IM_ROBOT.{BOB}"))  # to Bob alone, directly
        assert "Only @Manager4521 can answer" in told.params["markdown"]  # named as DingTalk showed them
        h.settled()
        assert len(fake.in_space(space)) == 2 and first.updates == 0  # nothing was answered for Ana


def test_analyze_then_a_capture_sent_as_a_file_answers_duration_and_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from tests.slack.test_captures import whole_run

    with running_dingtalk(tmp_path, lang="en", capture_max_bytes=20_000) as h:
        fake, dm = h.fake, f"dtv1.card//IM_ROBOT.{ANA}"
        fake.message("analyze", ANA)
        fake.wait_for(lambda: any("Upload a capture" in c.params["markdown"] for c in fake.in_space(dm)))
        fake.file_message("capture.csv", whole_run(), ANA)
        summary = fake.wait_for(
            lambda: next((c for c in fake.in_space(dm) if "Continuity" in c.params["markdown"]), None)
        )
        assert "dur=2.5h" in summary.params["markdown"] and "mem=40/80" in summary.params["markdown"]
        h.settled()
        convo = h.deps.conversations.by_thread(f"dingtalk:{CORP}", f"dm-{ANA}", next(iter(fake.cards)))
        assert convo is not None and convo.answers["duration"] == "2.5h" and convo.answers["memory"] == "40/80"
        fake.file_message("big.csv", whole_run(200) * 4, ANA)  # over the limit: said, nothing read
        fake.wait_for(lambda: any("larger than" in c.params["markdown"] for c in fake.in_space(dm)))
    assert warnings(caplog) == []  # no chart drawn for a chat that takes no files, none said not sent


def test_a_file_with_no_profile_open_says_how_to_send_one(tmp_path: Path) -> None:
    with running_dingtalk(tmp_path, lang="en") as h:
        h.fake.file_message("capture.csv", b"timestamp\n", BOB)
        [said] = h.fake.wait_for(lambda: h.fake.in_space(f"dtv1.card//IM_ROBOT.{BOB}"))
        assert "type `analyze` first" in said.params["markdown"].replace("\\", "")


def test_a_picture_is_answered_with_what_the_robot_reads(tmp_path: Path) -> None:
    with running_dingtalk(tmp_path, lang="en") as h:
        picture = {"msgtype": "picture", "content": {"downloadCode": "pic1", "pictureDownloadCode": "pic1"}}
        h.fake.message("", BOB, extra=picture)
        [said] = h.fake.wait_for(lambda: h.fake.in_space(f"dtv1.card//IM_ROBOT.{BOB}"))
        assert "I read typed words and capture files" in said.params["markdown"]
