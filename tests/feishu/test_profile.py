"""A profile on Feishu, through serve's /feishu/events with encrypted, signed callbacks and a fake Open API."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from bot.chat.conversation import current
from bot.text import Lang, t
from tests.support.fake_feishu import buttons
from tests.support.feishu_harness import FeishuHarness, running_feishu
from tests.support.pending import settled


def _question_cards(h: FeishuHarness, count: int) -> list[dict]:
    return h.fake.wait_for(
        lambda: (
            [c.card for c in h.fake.of("messages.reply")][:count] if len(h.fake.of("messages.reply")) >= count else None
        )
    )


def _texts(card: dict) -> str:
    return json.dumps(card, ensure_ascii=False)


def _wait_done(h: FeishuHarness) -> None:
    settled(h.deps)


def test_a_direct_message_starts_the_five_questions_in_a_thread(tmp_path: Path) -> None:
    with running_feishu(tmp_path) as h:
        answer = h.send.message("advise")
        assert answer.status_code == 200
        first = _question_cards(h, 1)[0]
        root = h.fake.of("messages.create")[0]
        assert root.query["receive_id_type"] == "chat_id" and root.body["receive_id"] == "oc_dm1"
        reply = h.fake.of("messages.reply")[0]
        assert reply.path == f"/open-apis/im/v1/messages/{root.body['_message_id']}/reply"
        assert reply.body["reply_in_thread"] is True and reply.body["msg_type"] == "interactive"
        assert first["schema"] == "2.0" and first["config"]["update_multi"] is True
        question = first["body"]["elements"][0]
        assert "任务类型" in question["content"] and set(question["i18n_content"]) == {"zh_cn", "en_us"}
        assert question["i18n_content"]["zh_cn"] != question["i18n_content"]["en_us"]
        assert buttons(first), "the usual answers are buttons"


@pytest.mark.parametrize("mode", ["http", "ws"])
def test_buttons_and_plain_replies_answer_and_the_recommendation_shows_the_costs(tmp_path: Path, mode: str) -> None:
    with running_feishu(tmp_path, mode) as h:
        h.send.message("advise")
        root_id = h.fake.wait_for(lambda: h.fake.of("messages.create"))[0].body["_message_id"]
        first = _question_cards(h, 1)[0]
        pressed = buttons(first)[0]
        assert h.send.press(pressed, message_id=h.fake.of("messages.reply")[0].body["_message_id"]).json()["toast"]
        h.fake.wait_for(lambda: len(h.fake.of("messages.reply")) >= 2)
        patched = h.fake.wait_for(lambda: h.fake.of("messages.patch"))[0]
        assert patched.path.endswith(h.fake.of("messages.reply")[0].body["_message_id"])
        assert "**" in _texts(patched.card)  # the answered card: the answer in bold
        # the rest typed in the thread, as people type them
        typed = {
            "duration": "about 10 hours",
            "memory": "70 GB of 80",
            "model_parallel": "no",
            "frequency": "每天",
            "can_resume": "不能",
            "phase": "skip",
            "gpu": "A100",
            "schedule": "skip",
        }
        for _ in range(len(typed)):
            convo = h.deps.conversations.by_thread("feishu:" + h.send.tenant, "oc_dm1", root_id)
            step = current(convo)
            if step is None:
                break
            before = len(h.fake.sent())
            h.send.message(typed[step.ask.key], root=root_id)
            h.fake.wait_for(lambda before=before: len(h.fake.sent()) > before)
            _wait_done(h)
        cards = [c.card for c in h.fake.of("messages.reply")]
        final = next((c for c in cards if "header" in c), None)
        assert final is not None, [_texts(c)[:200] for c in cards]
        shown = _texts(final)
        assert "¥" in shown or "$" in shown, "the costs are on the recommendation card"
        assert final["header"]["title"]["i18n_content"]["en_us"].startswith("Recommendation")


def test_a_forged_signature_is_refused_and_nothing_is_done(tmp_path: Path) -> None:
    with running_feishu(tmp_path) as h:
        payload = {"schema": "2.0", "header": h.send.header("im.message.receive_v1"), "event": {}}
        assert h.send.post(payload, signature="0" * 64).status_code == 401
        assert h.send.post(payload, timestamp=1_000_000_000).status_code == 401  # stale: more than 5 minutes
        assert h.fake.calls == []
        assert h.deps.inbox.pending(timedelta(days=1)) == []


def test_the_url_check_is_answered_with_its_challenge(tmp_path: Path) -> None:
    with running_feishu(tmp_path) as h:
        answer = h.send.post(
            {"challenge": "ajls384kdjx98XX", "token": h.send.verification_token, "type": "url_verification"}
        )
        assert answer.json() == {"challenge": "ajls384kdjx98XX"}
        wrong = h.send.post({"challenge": "x", "token": "not-the-token", "type": "url_verification"})
        assert wrong.status_code == 401


def test_a_redelivered_event_is_done_once(tmp_path: Path) -> None:
    with running_feishu(tmp_path) as h:
        h.send.message("advise", event_id="ev_same")
        h.fake.wait_for(lambda: h.fake.of("messages.reply"))
        _wait_done(h)
        assert h.send.message("advise", event_id="ev_same").status_code == 200
        _wait_done(h)
        assert len(h.fake.of("messages.create")) == 1


def test_a_press_from_another_tenant_changes_nothing(tmp_path: Path) -> None:
    """It finds no profile of that tenant: the presser alone is told the button is gone, nothing else is sent."""
    with running_feishu(tmp_path) as h:
        h.send.message("advise")
        first = _question_cards(h, 1)[0]
        _wait_done(h)
        before = len(h.fake.calls)
        h.send.press(buttons(first)[0], tenant="other-tenant-key")
        _wait_done(h)
        [told] = h.fake.calls[before:]
        assert told.method == "ephemeral.send" and told.body["open_id"] == "ou_starter"
        assert t("app.button_gone", Lang.ZH) in json.dumps(told.body["card"], ensure_ascii=False)


def test_the_frequency_limit_is_retried(tmp_path: Path) -> None:
    with running_feishu(tmp_path) as h:
        h.fake.rate_limit_once.add("messages.create")
        h.send.message("advise")
        h.fake.wait_for(lambda: h.fake.of("messages.reply"))
        assert len(h.fake.of("messages.create")) == 2  # refused once (99991400, HTTP 429), then sent


def test_every_answer_at_once_gives_the_recommendation_card(tmp_path: Path) -> None:
    with running_feishu(tmp_path) as h:
        h.send.message("10h mem=70/80 mp=no freq=daily resume=no")
        settled(h.deps)
        [recommended] = h.fake.of("messages.reply")  # in a thread under the person's message
        assert recommended.path == "/open-apis/im/v1/messages/om_user_1/reply"
        # answers typed at once are the bot's own words in any language: said in the team's (GPU_ADVISOR_LANG, zh)
        assert recommended.card["header"]["title"]["content"].startswith("建议")
        h.send.message("10h mem=lots")  # unreadable: what was wrong and what is accepted, nothing started
        settled(h.deps)
        said = _texts(h.fake.sent()[-1].card)
        assert "mem" in said and h.fake.of("messages.create") == []


def test_prices_lists_the_cached_offers_with_their_source(tmp_path: Path) -> None:
    with running_feishu(tmp_path) as h:
        h.send.message("prices A100")
        settled(h.deps)
        said = _texts(h.fake.sent()[-1].card)
        assert "A100-80GB" in said and "ratecard" in said


def test_the_menu_starts_a_profile_in_the_direct_chat_and_being_added_says_what_it_does(tmp_path: Path) -> None:
    with running_feishu(tmp_path) as h:
        event = {"operator": {"operator_id": {"open_id": "ou_starter"}}, "event_key": "new_profile"}
        h.send.post({"schema": "2.0", "header": h.send.header("application.bot.menu_v6"), "event": event})
        settled(h.deps)
        [root] = h.fake.of("messages.create")
        assert root.query["receive_id_type"] == "open_id" and root.body["receive_id"] == "ou_starter"
        convo = h.deps.conversations.by_thread(
            "feishu:" + h.send.tenant, h.fake.direct_chat("ou_starter"), root.body["_message_id"]
        )
        assert convo is not None  # a reply in that thread (it comes from the direct chat) answers it
        rentals = {"operator": {"operator_id": {"open_id": "ou_starter"}}, "event_key": "my_rentals"}
        h.send.post({"schema": "2.0", "header": h.send.header("application.bot.menu_v6"), "event": rentals})
        settled(h.deps)
        listed = h.fake.of("messages.create")[-1]
        assert listed.body["receive_id"] == "ou_starter" and "list_empty" not in _texts(listed.card)
        assert _texts(listed.card) != _texts(root.card)
        added = {"chat_id": "oc_newgroup", "operator_id": {"open_id": "ou_starter"}}
        h.send.post({"schema": "2.0", "header": h.send.header("im.chat.member.bot.added_v1"), "event": added})
        settled(h.deps)
        assert h.fake.of("messages.create")[-1].body["receive_id"] == "oc_newgroup"


def test_answers_typed_below_the_thread_go_on_with_the_open_profile(tmp_path: Path) -> None:
    """In a direct chat people type below the last message, not in the profile's thread: `每天都跑` was "not
    understood" while its question waited there. An answer to the open question (or to questions not yet answered)
    is taken as typed in the thread; what answers none stays the table's."""
    with running_feishu(tmp_path) as h:
        h.send.message("我要训练一个13B的模型，全参微调，大概要跑两天，不能中断")
        root_id = h.fake.wait_for(lambda: h.fake.of("messages.create"))[0].body["_message_id"]
        _wait_done(h)

        def step() -> str | None:
            convo = h.deps.conversations.by_thread("feishu:" + h.send.tenant, "oc_dm1", root_id)
            found = current(convo)
            return found.ask.key if found is not None else None

        assert step() == "model_parallel"
        for typed, then in (("要4卡并行", "frequency"), ("每天都跑", "phase"), ("跳过", "gpu")):
            before = len(h.fake.of("messages.reply"))
            h.send.message(typed)  # no root: below the thread, in the chat itself
            _wait_done(h)
            assert step() == then, typed
            asked = h.fake.of("messages.reply")[before:]
            assert asked and all(c.path.endswith(f"/{root_id}/reply") for c in asked), "asked on in its thread"
        convo = h.deps.conversations.by_thread("feishu:" + h.send.tenant, "oc_dm1", root_id)
        assert convo.answers["frequency"] == "每天都跑" and convo.answers["model_parallel"] == "要4卡并行"
        h.send.message("周末去爬山")  # answers nothing: the table's, the profile untouched
        _wait_done(h)
        assert step() == "gpu" and "没读懂" in _texts(h.fake.of("messages.reply")[-1].body)
