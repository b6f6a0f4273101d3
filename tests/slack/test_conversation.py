from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from slack_sdk.models.blocks import Block

from bot.state import Inbox, Store
from tests.support.slack_harness import Harness, running_app


def validate(message: dict[str, Any]) -> None:
    for block in message.get("blocks") or []:
        Block.parse(block).validate_json()  # type: ignore[union-attr]


def is_header(post: dict[str, Any]) -> bool:
    return bool((post.get("blocks") or [{}])[0].get("type") == "header")


KIND_QUESTIONS = {"What kind of workload is it?", "任务类型是什么？"}


def question_posts(h: Harness, thread_ts: str, *, kind: bool = False) -> list[dict[str, Any]]:
    """The questions posted in the thread; the kind-of-work question (asked first) only when `kind`."""
    return [
        p
        for p in h.posts(thread_ts=thread_ts)
        if any(b.get("block_id") == "question" for b in p.get("blocks") or [])
        and (kind or p.get("text") not in KIND_QUESTIONS)
    ]


def wait_question(h: Harness, thread_ts: str, count: int, *, kind: bool = False) -> dict[str, Any]:
    """The count-th question of the thread (counting the kind-of-work question when `kind`), once it is posted and
    the store knows it (it is saved right after it is posted: a test that moves the clock or answers before that
    races the save)."""

    def saved() -> dict[str, Any] | None:
        qs = question_posts(h, thread_ts, kind=kind)
        if len(qs) < count:
            return None
        convo = h.deps.conversations.by_thread("T1", qs[0]["channel"], thread_ts)
        known = convo is not None and (
            convo.question_ts in {q.get("_ts") for q in qs[count - 1 :]} - {None} or convo.step > count
        )
        return qs[count - 1] if known else None

    return h.fake.wait_for(saved)  # type: ignore[no-any-return]


def start(h: Harness, *, skip_kind: bool = True, **kwargs: Any) -> dict[str, Any]:
    """Start a profile; unless told otherwise, skip the first question (the kind of work), so the
    five questions of a training profile follow."""
    status, body = h.send.command("", response_url=h.fake.response_url(), **kwargs)
    assert (status, body) == (200, "")
    root = h.wait_posts(1)[0]  # the root message
    # the first question (the kind of work), once the store knows it: it is saved right after it is posted
    kind = wait_question(h, root["_ts"], 1, kind=True)
    if skip_kind:
        assert h.send.click(kind, button(kind, "Skip"), user=kwargs.get("user", "U1"))[0] == 200
        h.fake.wait_for(lambda: h.fake.of("chat.update"))
    return root


def button(message: dict[str, Any], label: str) -> str:
    return next(
        e["action_id"]
        for b in message["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e["text"]["text"] == label
    )


def test_whole_conversation_by_buttons(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        root = start(h)
        assert "<@U1>" in h.texts(root)
        thread = root["_ts"]
        clicks = ["Over 8 h", "Yes", "No", "Daily", "No, it starts over", "Skip", "Skip", "Skip"]
        for n, label in enumerate(clicks, 1):
            question = wait_question(h, thread, n)
            validate(question)
            status, _ = h.send.click(question, button(question, label))
            assert status == 200
        result = h.fake.wait_for(lambda: [p for p in h.posts(thread_ts=thread) if is_header(p)])
        recommendation = result[0]
        validate(recommendation)
        header = recommendation["blocks"][0]["text"]["text"]
        assert header == "Recommendation: Dedicated card: A100-80GB"  # en-US locale
        text = h.texts(recommendation)
        assert "Long run" in text and "Memory tight" in text and "Cannot tolerate interruption" in text
        assert "Dedicated" in text and "No spot: the job cannot resume" in text  # the costs
        # the whole card on a shared platform, its row and its saving named alike (the saving said "Shared 1 card")
        assert "Whole card by the hour (shared platform) costs 12.3% less than dedicated" in text
        assert "STALE" in text and "as of 2024-06-01" in text
        assert "Assumed from your answers" in text
        updates = h.fake.of("chat.update")
        assert len(updates) == 9
        assert "_skipped_ by <@U1>" in h.texts(updates[0])  # the kind of work, skipped in start()
        assert "answered by <@U1>" in h.texts(updates[1])
        assert "_skipped_ by <@U1>" in h.texts(updates[-1])
        # every acknowledged request's work is marked done, so a restart redoes nothing
        store = Store(h.settings.files.state_db_path())
        h.fake.wait_for(lambda: Inbox(store).pending(timedelta(hours=1)) == [])
        # the users.info locale was looked up once and cached
        assert len(h.fake.of("users.info")) == 1 and h.fake.of("users.info")[0]["include_locale"] in ("1", "true")


def test_conversation_by_typed_replies_in_chinese(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.fake.locales["U7"] = "zh-CN"
        root = start(h, user="U7", skip_kind=False)
        thread = root["_ts"]
        h.fake.wait_for(lambda: question_posts(h, thread, kind=True))
        h.send.event(
            {
                "type": "message",
                "channel": "C1",
                "user": "U7",
                "text": "lora",
                "ts": "1700000001.000000",
                "thread_ts": thread,
                "channel_type": "channel",
            },
            event_id="EvKind",
        )
        replies = ["大约10个小时", "70G/80G", "不需要", "每天", "不能", "稳定", "跳过", "每天4小时，14天"]
        for n, reply in enumerate(replies, 1):
            wait_question(h, thread, n)
            status, _ = h.send.event(
                {
                    "type": "message",
                    "channel": "C1",
                    "user": "U7",
                    "text": reply,
                    "ts": f"1700000001.{n:06d}",
                    "thread_ts": thread,
                    "channel_type": "channel",
                },
                event_id=f"Ev{n}",
            )
            assert status == 200
        result = h.fake.wait_for(lambda: [p for p in h.posts(thread_ts=thread) if is_header(p)])
        text = h.texts(result[0])
        assert result[0]["blocks"][0]["text"]["text"] == "建议: 独占卡：A100-80GB"
        assert "长时任务：单次 10 小时" in text and "显存紧张" in text
        assert "中期稳定期" in text
        assert "¥5,600" in text and "¥1,568" in text  # 4 h x 14 days, dedicated vs a whole card by the hour
        assert "注意：LoRA 通常适合共享卡" in text


def test_bad_typed_answer_is_reasked(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        thread = start(h)["_ts"]
        wait_question(h, thread, 1)
        h.send.event(
            {
                "type": "message",
                "channel": "C1",
                "user": "U1",
                "text": "soonish",
                "ts": "1700000001.1",
                "thread_ts": thread,
            },
            event_id="EvBad",
        )
        reply = h.fake.wait_for(lambda: [p for p in h.posts(thread_ts=thread) if "soonish" in str(p.get("text"))])
        assert "Accepted" in reply[0]["text"] and "3.5 hours" in reply[0]["text"]
        assert len(question_posts(h, thread)) == 1  # still on question 1
        h.send.event(
            {
                "type": "message",
                "channel": "C1",
                "user": "U1",
                "text": "3.5 hours",
                "ts": "1700000001.2",
                "thread_ts": thread,
            },
            event_id="EvGood",
        )
        second = wait_question(h, thread, 2)
        assert "Question 2/5" in h.texts(second)


def test_other_users_replies_are_ignored_and_the_starter_told_once(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        thread = start(h)["_ts"]
        wait_question(h, thread, 1)
        for n in (1, 2):
            h.send.event(
                {
                    "type": "message",
                    "channel": "C1",
                    "user": "U2",
                    "text": "10h",
                    "ts": f"1700000002.{n}",
                    "thread_ts": thread,
                },
                event_id=f"EvOther{n}",
            )
        notes = h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))
        h.send.event(
            {"type": "message", "channel": "C1", "user": "U1", "text": "2h", "ts": "1700000002.9", "thread_ts": thread},
            event_id="EvMine",
        )
        wait_question(h, thread, 2)
        assert len(h.fake.of("chat.postEphemeral")) == 1
        assert notes[0]["user"] == "U1" and "<@U2>" in notes[0]["text"]
        assert "2h" in h.texts(h.fake.of("chat.update")[1])  # [0] is the skipped kind of work


def test_another_user_pressing_a_button_is_told_only_the_starter_can_answer(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        thread = start(h)["_ts"]
        question = wait_question(h, thread, 1)
        h.send.click(question, button(question, "Over 8 h"), user="U9")
        note = h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))
        assert note[0]["user"] == "U9" and "Only <@U1>" in note[0]["text"]
        assert len(h.fake.of("chat.update")) == 1  # only the kind of work, skipped in start()


def test_bot_and_own_messages_are_ignored(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        thread = start(h)["_ts"]
        wait_question(h, thread, 1)
        h.send.event(
            {
                "type": "message",
                "channel": "C1",
                "bot_id": "B2",
                "user": "U5",
                "text": "10h",
                "ts": "1700000003.1",
                "thread_ts": thread,
            },
            event_id="EvBot",
        )
        h.send.event(
            {
                "type": "message",
                "channel": "C1",
                "user": "UBOT",
                "text": "10h",
                "ts": "1700000003.2",
                "thread_ts": thread,
            },
            event_id="EvSelf",
        )
        h.send.event(
            {
                "type": "message",
                "subtype": "message_changed",
                "channel": "C1",
                "ts": "1700000003.3",
                "thread_ts": thread,
            },
            event_id="EvEdit",
        )
        h.send.event(
            {"type": "message", "channel": "C1", "user": "U1", "text": "1h", "ts": "1700000003.4", "thread_ts": thread},
            event_id="EvReal",
        )
        wait_question(h, thread, 2)
        h.fake.wait_for(lambda: len(h.fake.of("chat.update")) >= 2)  # the skip's update may land after question 2
        assert len(h.fake.of("chat.update")) == 2  # the skipped kind of work, then 1h


def test_retried_event_is_answered_once(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        thread = start(h)["_ts"]
        wait_question(h, thread, 1)
        event = {
            "type": "message",
            "channel": "C1",
            "user": "U1",
            "text": "10h",
            "ts": "1700000004.1",
            "thread_ts": thread,
        }
        assert h.send.event(event, event_id="EvSame")[0] == 200
        wait_question(h, thread, 2)
        retry = h.send.event(
            event, event_id="EvSame", headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}
        )
        assert retry[0] == 200
        h.send.event(
            {
                "type": "message",
                "channel": "C1",
                "user": "U1",
                "text": "yes",
                "ts": "1700000004.2",
                "thread_ts": thread,
            },
            event_id="EvNext",
        )
        wait_question(h, thread, 3)
        assert len(h.fake.of("chat.update")) == 3  # the skipped kind of work, 10h once, then yes


def test_expired_conversation_says_so(tmp_path: Path) -> None:
    with running_app(tmp_path, conversation_ttl_hours=24) as h:
        thread = start(h)["_ts"]
        question = wait_question(h, thread, 1)
        h.clock.advance(hours=25)
        h.send.click(question, button(question, "Over 8 h"))
        note = h.fake.wait_for(lambda: [p for p in h.posts(thread_ts=thread) if "expired" in str(p.get("text"))])
        assert "24 h" in note[0]["text"]
        h.fake.wait_for(lambda: h.fake.of("chat.update"))  # the skip's update may land after question 1
        assert len(h.fake.of("chat.update")) == 1  # only the kind of work, skipped before it expired


def test_start_over_opens_a_new_profile(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        status, _ = h.send.command("10h mem=70/80 mp=no freq=daily resume=no", response_url=h.fake.response_url())
        assert status == 200
        rec = h.fake.wait_for(lambda: [p for p in h.posts() if is_header(p)])[0]
        h.send.click(rec, "start_over")
        root = h.fake.wait_for(lambda: [p for p in h.posts() if "a few questions" in str(p.get("text"))])[0]
        first = h.fake.wait_for(lambda: question_posts(h, root["_ts"], kind=True))[0]
        assert first["text"] == "What kind of workload is it?"  # the kind of work comes first


def test_a_slack_api_error_is_told_to_the_user_with_an_error_id(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        thread = start(h)["_ts"]
        question = wait_question(h, thread, 1)
        h.fake.errors["chat.update"] = "message_not_found"
        h.send.click(question, button(question, "Over 8 h"))
        (note,) = h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))
        assert note["user"] == "U1"
        assert "Slack refused a request (`message_not_found`, error id `" in note["text"]


def test_a_typed_answer_echoed_in_an_error_is_escaped(tmp_path: Path) -> None:
    """Issue 19.9: what someone typed is never posted back as a mention or a link."""
    with running_app(tmp_path) as h:
        thread = start(h)["_ts"]
        wait_question(h, thread, 1)
        h.send.event(
            {
                "type": "message",
                "channel": "C1",
                "user": "U1",
                "text": "<!channel> soon",
                "ts": "1700000001.000001",
                "thread_ts": thread,
            },
            event_id="EvEsc",
        )
        said = h.fake.wait_for(
            lambda: [t for t in (str(p.get("text")) for p in h.posts(thread_ts=thread)) if "channel" in t]
        )[0]
        assert "<!channel>" not in said and "&lt;!channel&gt;" in said


def test_a_click_the_moment_question_one_appears_is_not_lost(tmp_path: Path) -> None:
    """The first question is on screen as soon as it is posted, before the conversation has saved which it
    is; a click in that moment waits for the save instead of being read against a conversation without it."""
    import threading
    import time

    with running_app(tmp_path) as h:
        real_save = h.deps.conversations.save
        posted = threading.Event()

        def slow_save(convo: Any) -> None:
            if convo.question_ts and convo.step == 1 and not posted.is_set():
                posted.set()  # question 1 (the kind of work) is out; its save comes late
                time.sleep(0.5)
            real_save(convo)

        h.deps.conversations.save = slow_save  # type: ignore[method-assign]
        assert h.send.command("", response_url=h.fake.response_url())[0] == 200
        root = h.wait_posts(1)[0]
        kind = h.fake.wait_for(lambda: posted.is_set() and question_posts(h, root["_ts"], kind=True))[0]
        assert h.send.click(kind, button(kind, "Skip"))[0] == 200  # while the save sleeps
        h.fake.wait_for(lambda: h.fake.of("chat.update"))
        wait_question(h, root["_ts"], 1)  # the training profile's first question follows the skip
