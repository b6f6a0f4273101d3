"""The same scenarios on Slack, Feishu, DingTalk and WeCom (parametrised by platform): the core is neutral when
the same steps, pressed and typed through each platform's own requests against its local fake, give the same
outcome. DingTalk's and WeCom's robots have no threads: their profiles run in a group, answered by the starter's
messages there."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol

import pytest

from bot.app.table import typed_lang
from bot.chat.conversation import current
from bot.deps import Deps
from bot.digest.due import run_due
from bot.state import Conversation
from bot.state.rentals import Rentals
from bot.text import Lang
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI
from tests.feishu.test_digest import GROUP as FEISHU_GROUP
from tests.support.dingtalk_harness import DingTalkHarness, running_dingtalk
from tests.support.fake_dingtalk import CORP as DINGTALK_CORP
from tests.support.fake_feishu import buttons as card_buttons
from tests.support.fake_wecom import BOT_ID as WECOM_BOT
from tests.support.feishu_harness import FeishuHarness, running_feishu
from tests.support.idle_item import idle_item
from tests.support.pending import settled
from tests.support.slack_harness import Harness, running_app
from tests.support.wecom_harness import WeComHarness, running_wecom

STARTER, STRANGER = "starter", "stranger"


class Driver(Protocol):
    deps: Deps

    def start(self, said: str | None = None) -> None:
        """The starter asks for a profile (with `said`: by describing the job)."""

    def press(self, value: str | None, user: str = STARTER) -> None:
        """Press the open question's button for answer `value` (None: Skip)."""

    def reply(self, text: str, user: str = STARTER) -> None:
        """Type `text` in the profile's thread."""

    def convo(self) -> Conversation:
        """The profile, as the store has it."""

    def recommendation(self) -> str | None:
        """The recommendation's text, once it is posted."""

    def digest(self) -> None:
        """At 09:31 Shanghai time an idle item of the starter's, tracked in a group: the group's digest is sent."""

    def press_released(self, user: str) -> None:
        """Press the digest's Released for the item."""

    def released(self) -> bool:
        """Whether the item is released, as the store has it."""

    def command(self, text: str) -> str:
        """Type a sub-command where the chat takes one (Slack: /gpu-advise; elsewhere: to the bot in a group, as
        its people do): the text of its answer."""

    def in_group(self, text: str) -> str:
        """Type `text` to the bot in the group the digest goes to: every message it sends in answer, as text; the
        last one is then what `press_released` presses."""


def _value(raw: str) -> dict[str, Any]:
    try:
        found = json.loads(raw)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


class SlackDriver:
    def __init__(self, h: Harness) -> None:
        self.h, self.deps, self.root = h, h.deps, ""
        self.ids = {STARTER: "U1", STRANGER: "U2"}
        self._events = itertools.count(1)

    def start(self, said: str | None = None) -> None:
        assert self.h.send.command(said or "", response_url=self.h.fake.response_url())[0] == 200
        self.root = self.h.wait_posts(1)[0]["_ts"]
        self.h.fake.wait_for(lambda: (found := self._find()) is not None and found.question_ts)
        settled(self.deps)

    def _question(self) -> dict[str, Any]:
        ts = self.convo().question_ts
        return next(p for p in self.h.posts(thread_ts=self.root) if p.get("_ts") == ts)

    def press(self, value: str | None, user: str = STARTER) -> None:
        question = self._question()
        action = next(
            e["action_id"]
            for b in question["blocks"]
            if b["type"] == "actions"
            for e in b["elements"]
            if _value(e.get("value", "")).get("v", "?") == value and e["action_id"] != "memory_from_model"
        )
        assert self.h.send.click(question, action, user=self.ids[user])[0] == 200
        settled(self.deps)

    def reply(self, text: str, user: str = STARTER) -> None:
        n = next(self._events)
        event = {
            "type": "message",
            "channel": self.convo().channel,
            "user": self.ids[user],
            "text": text,
            "ts": f"{self.root}{n:03d}",
            "thread_ts": self.root,
        }
        assert self.h.send.event(event, f"Ev{n:06d}")[0] == 200
        settled(self.deps)

    def _find(self) -> Conversation | None:
        return self.deps.conversations.by_thread("T1", "C1", self.root)

    def convo(self) -> Conversation:
        found = self._find()
        assert found is not None
        return found

    def recommendation(self) -> str | None:
        done = [p for p in self.h.posts(thread_ts=self.root) if (p.get("blocks") or [{}])[0].get("type") == "header"]
        return self.h.texts(done[-1]) if done else None

    def digest(self) -> None:
        self.team = "T1"
        _idle_digest(self.deps, self.h.clock, self.team, "C1", self.ids[STARTER], self.h.outlets())
        self.message = self.h.posts(channel="C1")[-1]

    def press_released(self, user: str) -> None:
        assert self.h.send.click(self.message, "rental_released", user=self.ids[user])[0] == 200
        settled(self.deps)

    def released(self) -> bool:
        return _released(self.deps, self.team)

    def command(self, text: str) -> str:
        name = f"c{next(self._events)}"
        assert self.h.send.command(text, response_url=self.h.fake.response_url(name))[0] == 200
        said = self.h.fake.wait_for(
            lambda: [r for r in self.h.fake.of("response_url") if r.get("_path") == f"/response/{name}"]
        )
        return self.h.texts(said[0])

    def in_group(self, text: str) -> str:
        self.team, before = "T1", len(self.h.fake.calls)
        name = f"c{next(self._events)}"
        assert self.h.send.command(text, response_url=self.h.fake.response_url(name))[0] == 200
        settled(self.deps)
        sent = [c.args for c in self.h.fake.calls[before:] if c.method in ("chat.postMessage", "response_url")]
        posted = [m for m in sent if "_ts" in m]
        if posted:
            self.message = posted[-1]
        return "\n".join(self.h.texts(m) for m in sent)


class FeishuDriver:
    def __init__(self, h: FeishuHarness) -> None:
        self.h, self.deps, self.root = h, h.deps, ""
        self.ids = {STARTER: "ou_starter", STRANGER: "ou_stranger"}

    def start(self, said: str | None = None) -> None:
        assert self.h.send.message(said or "advise", user=self.ids[STARTER]).status_code == 200
        settled(self.deps)
        self.root = self.h.fake.of("messages.create")[0].body["_message_id"]

    def press(self, value: str | None, user: str = STARTER) -> None:
        question_id = self.convo().question_ts
        question = next(c for c in self.h.fake.of("messages.reply") if c.body.get("_message_id") == question_id)
        pressed = next(
            b
            for b in card_buttons(question.card)
            if _value(b["behaviors"][0]["value"]["value"]).get("v", "?") == value
            and b["behaviors"][0]["value"]["action"] != "memory_from_model"
        )
        assert self.h.send.press(pressed, user=self.ids[user], message_id=str(question_id)).status_code == 200
        settled(self.deps)

    def reply(self, text: str, user: str = STARTER) -> None:
        assert self.h.send.message(text, user=self.ids[user], root=self.root).status_code == 200
        settled(self.deps)

    def convo(self) -> Conversation:
        found = self.deps.conversations.by_thread("feishu:" + self.h.send.tenant, "oc_dm1", self.root)
        assert found is not None
        return found

    def recommendation(self) -> str | None:
        done = [c.card for c in self.h.fake.of("messages.reply") if "header" in c.card]
        return json.dumps(done[-1], ensure_ascii=False) if done else None

    def digest(self) -> None:
        self.team = "feishu:" + self.h.send.tenant
        _idle_digest(
            self.deps, self.h.clock, self.team, FEISHU_GROUP, self.ids[STARTER], lambda _t: self.h.gateway.outlet()
        )
        self.post = self.h.fake.of("messages.create")[-1]

    def press_released(self, user: str) -> None:
        pressed = next(
            b for b in card_buttons(self.post.card) if b["behaviors"][0]["value"]["action"] == "rental_released"
        )
        message = str(self.post.body["_message_id"])
        assert self.h.send.press(pressed, user=self.ids[user], chat=FEISHU_GROUP, message_id=message).status_code == 200
        settled(self.deps)

    def released(self) -> bool:
        return _released(self.deps, self.team)

    def command(self, text: str) -> str:
        before = len(self.h.fake.sent())
        self.h.send.message(text, user=self.ids[STARTER])
        self.h.fake.wait_for(lambda: len(self.h.fake.sent()) > before)
        settled(self.deps)
        return json.dumps(self.h.fake.sent()[before].card, ensure_ascii=False)

    def in_group(self, text: str) -> str:
        self.team, before = "feishu:" + self.h.send.tenant, len(self.h.fake.sent())
        mention = [{"key": "@_user_1", "id": {"open_id": "ou_bot"}, "name": "GPU Advisor"}]
        said = self.h.send.message(
            f"@_user_1 {text}", chat=FEISHU_GROUP, chat_type="group", user=self.ids[STARTER], mentions=mention
        )
        assert said.status_code == 200
        self.h.fake.wait_for(lambda: len(self.h.fake.sent()) > before)
        settled(self.deps)
        sent = self.h.fake.sent()[before:]
        self.post = sent[-1]
        return "\n".join(json.dumps(c.card, ensure_ascii=False) for c in sent)


GROUP = "cidGroupA1b2C3+d4/e5=="  # DingTalk's shape of a group conversation; WeCom takes it too


def _pressed_value(action: str, value: str, v: str | None) -> bool:
    return action != "memory_from_model" and _value(value).get("v", "?") == v


class DingTalkDriver:
    def __init__(self, h: DingTalkHarness) -> None:
        self.h, self.deps, self.root = h, h.deps, ""
        self.ids = {STARTER: "starter01", STRANGER: "stranger02"}

    def start(self, said: str | None = None) -> None:
        self.h.fake.message(said or "advise", self.ids[STARTER], group=GROUP)
        settled(self.deps)
        self.root = next(iter(self.h.fake.cards))

    def press(self, value: str | None, user: str = STARTER) -> None:
        card = self.h.fake.cards[str(self.convo().question_ts)]
        button = next(
            b
            for b in card.buttons
            if _pressed_value(*(lambda p: (p["action"], p["value"]))(json.loads(b["value"])), value)
        )
        self.h.fake.press(card, button, self.ids[user])
        settled(self.deps)

    def reply(self, text: str, user: str = STARTER) -> None:
        self.h.fake.message(text, self.ids[user], group=GROUP)
        settled(self.deps)

    def convo(self) -> Conversation:
        found = self.deps.conversations.by_thread(f"dingtalk:{DINGTALK_CORP}", GROUP, self.root)
        assert found is not None
        return found

    def recommendation(self) -> str | None:
        done = [c.params for c in self.h.fake.cards.values() if c.params.get("title")]
        return json.dumps(done[-1], ensure_ascii=False) if done else None

    def digest(self) -> None:
        self.team = f"dingtalk:{DINGTALK_CORP}"
        _idle_digest(self.deps, self.h.clock, self.team, GROUP, self.ids[STARTER], self.h.gateway.wing().outlet)
        self.card = list(self.h.fake.cards.values())[-1]

    def press_released(self, user: str) -> None:
        button = next(b for b in self.card.buttons if json.loads(b["value"])["action"] == "rental_released")
        self.h.fake.press(self.card, button, self.ids[user])
        settled(self.deps)

    def released(self) -> bool:
        return _released(self.deps, self.team)

    def command(self, text: str) -> str:
        before = len(self.h.fake.cards)
        self.h.fake.message(text, self.ids[STARTER], group=GROUP)
        settled(self.deps)
        return json.dumps(list(self.h.fake.cards.values())[before].params, ensure_ascii=False)

    def in_group(self, text: str) -> str:
        self.team, before = f"dingtalk:{DINGTALK_CORP}", len(self.h.fake.cards)
        self.h.fake.message(text, self.ids[STARTER], group=GROUP)
        settled(self.deps)
        sent = list(self.h.fake.cards.values())[before:]
        self.card = sent[-1]
        return "\n".join(json.dumps(c.params, ensure_ascii=False) for c in sent)


class WeComDriver:
    def __init__(self, h: WeComHarness) -> None:
        self.h, self.deps, self.root = h, h.deps, ""
        self.ids = {STARTER: "starter01", STRANGER: "stranger02"}

    def start(self, said: str | None = None) -> None:
        self.h.settled(self.h.fake.message(said or "advise", self.ids[STARTER], group=GROUP))
        self.root = str(self.h.fake.to(GROUP)[0].card.get("task_id") or "")
        if not self.root:  # the root has no buttons: a markdown message, named by the profile's thread
            self.root = str(self.convo_of_starter().thread_ts)

    def convo_of_starter(self) -> Conversation:
        found = self.deps.conversations.open_for(f"wecom:{WECOM_BOT}", GROUP, self.ids[STARTER])
        assert found is not None
        return found

    def press(self, value: str | None, user: str = STARTER) -> None:
        sent = self.h.fake.by_task(str(self.convo().question_ts))
        button = next(
            b for b in sent.buttons if _pressed_value(*(lambda p: (p["a"], p["v"]))(json.loads(b["key"])), value)
        )
        self.h.settled(self.h.fake.click(sent, button, self.ids[user]))

    def reply(self, text: str, user: str = STARTER) -> None:
        self.h.settled(self.h.fake.message(text, self.ids[user], group=GROUP))

    def convo(self) -> Conversation:
        found = self.deps.conversations.by_thread(f"wecom:{WECOM_BOT}", GROUP, self.root)
        assert found is not None
        return found

    def digest(self) -> None:
        self.team = f"wecom:{WECOM_BOT}"
        _idle_digest(self.deps, self.h.clock, self.team, GROUP, self.ids[STARTER], self.h.gateway.wing().outlet)
        self.sent = self.h.fake.to(GROUP)[-1]

    def press_released(self, user: str) -> None:
        button = next(b for b in self.sent.buttons if json.loads(b["key"])["a"] == "rental_released")
        self.h.settled(self.h.fake.click(self.sent, button, self.ids[user]))

    def released(self) -> bool:
        return _released(self.deps, self.team)

    def command(self, text: str) -> str:
        before = len(self.h.fake.sent)
        self.h.settled(self.h.fake.message(text, self.ids[STARTER], group=GROUP))
        return self.h.fake.sent[before].text

    def in_group(self, text: str) -> str:
        self.team, before = f"wecom:{WECOM_BOT}", len(self.h.fake.sent)
        self.h.settled(self.h.fake.message(text, self.ids[STARTER], group=GROUP))
        sent = self.h.fake.sent[before:]
        self.sent = sent[-1]
        return "\n".join(json.dumps(s.card, ensure_ascii=False) + s.text for s in sent)

    def recommendation(self) -> str | None:
        done = [
            s.text
            for s in self.h.fake.to(GROUP)
            if s.card.get("main_title", {}).get("title", "GPU Advisor") != "GPU Advisor"
        ]
        return done[-1] if done else None


def _idle_digest(deps: Deps, clock: Any, team: str, channel: str, owner: str, outlet: Any) -> None:
    """An idle item of `owner`'s in `channel`, and 09:31 in Shanghai: the channel's digest, sent by serve's job."""
    clock.now = MONDAY_0910_SHANGHAI + timedelta(minutes=21)
    idle_item(deps.store, clock.now, team, channel, owner)
    [sent] = run_due(deps, outlet)
    assert sent.status == "sent" and sent.channel == channel


def _released(deps: Deps, team: str) -> bool:
    found = Rentals(deps.store).instance(team, "train-1")
    assert found is not None
    return found.released_at is not None


@contextmanager
def driving(platform: str, tmp_path: Path) -> Iterator[Driver]:
    if platform == "slack":
        with running_app(tmp_path) as h:
            yield SlackDriver(h)
    elif platform == "feishu":
        with running_feishu(tmp_path) as f:
            yield FeishuDriver(f)
    elif platform == "dingtalk":
        with running_dingtalk(tmp_path) as d:
            yield DingTalkDriver(d)
    else:
        with running_wecom(tmp_path) as w:
            yield WeComDriver(w)


def told(chat: Driver) -> str:
    """Everything a threadless chat's or Feishu's fake was given to show anyone: calls' bodies, cards, press
    acknowledgements (what a test looks for in what was said, wherever it was said)."""
    fake = chat.h.fake  # type: ignore[attr-defined]
    if hasattr(fake, "acks"):  # DingTalk: cards (a message is a card) and what each press was answered
        answered = [json.loads(ack.get("data") or "{}") for ack in fake.acks.values()]  # the SDK's ack: JSON text
        return json.dumps([c.params for c in fake.cards.values()] + answered, ensure_ascii=False)
    if hasattr(fake, "calls"):  # Feishu
        return json.dumps([c.body for c in fake.calls], ensure_ascii=False)
    return json.dumps([[s.card, s.text, s.updates] for s in fake.sent], ensure_ascii=False)  # WeCom


PLATFORMS = pytest.mark.parametrize("platform", ["slack", "feishu", "dingtalk", "wecom"])


@PLATFORMS
def test_buttons_and_typed_answers_end_in_the_recommendation_with_its_costs(platform: str, tmp_path: Path) -> None:
    with driving(platform, tmp_path) as chat:
        chat.start()
        chat.press(None)  # the kind of work: skipped
        chat.reply("about 10 hours")
        chat.press("yes")  # memory above 80% of the card
        chat.reply("no")  # model parallel
        chat.press("daily")
        chat.reply("不能")  # cannot resume
        while (step := current(chat.convo())) is not None:
            chat.reply("skip" if step.ask.key != "gpu" else "A100")
        said = chat.recommendation()
        assert said is not None and ("独占" in said or "Dedicated" in said)
        assert "¥" in said  # the costs, from the bundled rate card
        assert chat.convo().values["duration"]["hours"] == 10.0 and chat.convo().status == "done"


def test_a_model_size_alone_takes_the_kind_of_work_answered_before_it(tmp_path: Path) -> None:
    """ "7B" on the memory question was "not understood"; without the kind of work it is asked about (trained or
    served: 120 GB or 16 GB), after "推理服务" it is that model served. The core reads it for every chat: one checks."""
    with driving("wecom", tmp_path) as chat:
        chat.start()
        for said in ("推理服务", "几百", "50毫秒以内", "一直跑"):  # the kind of work, then the service's questions
            chat.reply(said)
        step = current(chat.convo())
        assert step is not None and step.ask.key == "memory"
        chat.reply("7B模型")
        memory = chat.convo().values["memory"]
        assert (memory["model_size_b"], memory["method"]) == (7.0, "inference"), memory


@PLATFORMS
def test_a_model_named_with_the_kind_of_work_is_one_press_from_the_memorys_answer(
    platform: str, tmp_path: Path
) -> None:
    """`做lora微调 qwen2-7b` named the model, and the memory question then asked as if it had not: it now offers
    "Estimate from qwen2-7b", whose press answers it as typed, read as that LoRA (not the model served)."""
    with driving(platform, tmp_path) as chat:
        chat.start()
        chat.reply("做lora微调 qwen2-7b")
        chat.reply("3 hours")
        step = current(chat.convo())
        assert step is not None and step.ask.key == "memory"
        chat.press("qwen2-7b")
        memory = chat.convo().values["memory"]
        assert (memory["model_size_b"], memory["method"], memory["served_model"]) == (7.0, "lora", None), memory
        assert chat.convo().answers["memory"] == "qwen2-7b"


@PLATFORMS
def test_not_knowing_the_memory_takes_the_model_the_kind_of_work_named(platform: str, tmp_path: Path) -> None:
    """`13B 全参微调`, then `不知道` on the memory question: refused asking for yes or no, the 13B said one question
    before unused; it is now that model's estimate, as the "Estimate from 13B" button gives it."""
    with driving(platform, tmp_path) as chat:
        chat.start()
        chat.reply("13B 全参微调")
        chat.reply("两天")
        chat.reply("不知道")
        memory = chat.convo().values["memory"]
        assert (memory["model_size_b"], memory["method"]) == (13.0, "full-finetune"), memory
        assert chat.convo().answers["memory"] == "13B"


def test_an_optional_question_not_decided_yet_is_skipped_as_said(tmp_path: Path) -> None:
    """`还没定` to the GPU question was refused naming every known GPU, `不知道` to the phase asked for the nearest:
    an optional question not decided or not known is skipped, as its Skip button does; a required one is not."""
    with driving("wecom", tmp_path) as chat:
        chat.start()
        for said in ("推理服务", "几百", "50毫秒以内", "一直跑", "七十G/80G"):
            chat.reply(said)
        chat.reply("不知道呢")  # the phase: optional (not knowing in other words skips too: "no idea honestly")
        chat.reply("no idea honestly")  # the GPU: optional
        answers = chat.convo().answers
        assert (answers["phase"], answers["gpu"]) == ("", ""), answers
    with driving("wecom", tmp_path / "required") as chat:
        chat.start()
        chat.press(None)  # the kind of work skipped: the duration is asked, and is required
        chat.reply("不知道")
        assert "duration" not in chat.convo().answers


@PLATFORMS
def test_the_next_questions_answer_typed_at_an_optional_one_skips_it(platform: str, tmp_path: Path) -> None:
    """`10小时` typed while the kind of work (optional) was asked was refused as no kind of work, though it answers the
    next question: the optional one is skipped, as its Skip button does, and the words are the next one's answer.
    `跑一晚上` (10 h?) skips it too and is asked back as the duration's; `no` answers neither and is refused."""
    with driving(platform, tmp_path) as chat:
        chat.start()
        chat.reply("no")
        assert "workload" not in chat.convo().answers
        chat.reply("10小时")
        answers = chat.convo().answers
        assert (answers["workload"], answers["duration"]) == ("", "10小时"), answers
        step = current(chat.convo())
        assert step is not None and step.ask.key == "memory" and chat.convo().question_ts
    with driving(platform, tmp_path / "unclear") as chat:
        chat.start()
        chat.reply("跑一晚上")
        answers = chat.convo().answers
        assert answers["workload"] == "" and "duration" not in answers, answers
        step = current(chat.convo())
        assert step is not None and step.ask.key == "duration" and chat.convo().question_ts
        if platform != "slack":
            assert "10h" in told(chat).split("跑一晚上")[-1], told(chat)  # asked back: is it 10 h?


@PLATFORMS
def test_a_job_described_in_one_message_is_a_profile_with_those_answers(platform: str, tmp_path: Path) -> None:
    """`我想微调一个qwen2.5 7b，用lora，大概跑3个小时` was "not understood": it starts the profile with the kind of
    work, the run's length and the model's estimate kept (said back), asking the first question left; a reply
    answering several questions, a clause each, keeps them all (only the open question's was kept)."""
    with driving(platform, tmp_path) as chat:
        chat.start("我想微调一个qwen2.5 7b，用lora，大概跑3个小时")
        convo = chat.convo()
        assert (convo.values["workload"], convo.values["duration"]["hours"]) == ("lora", 3.0), convo.values
        memory = convo.values["memory"]
        assert (memory["model_size_b"], memory["method"], memory["served_model"]) == (7.0, "lora", None), memory
        step = current(convo)
        assert step is not None and step.ask.key == "model_parallel" and convo.question_ts
        fake = chat.h.fake  # type: ignore[attr-defined]
        posted = json.dumps(fake.of("chat.postMessage"), ensure_ascii=False) if platform == "slack" else told(chat)
        assert "大概跑3个小时" in posted and "用lora" in posted, posted  # said back, under the profile's first words
        chat.reply("不需要多卡，每天跑，能中断")
        values = chat.convo().values
        assert (values["model_parallel"], values["can_resume"]) == (False, True), values
        assert values["frequency"]["runs_per_week"] == 7.0, values
        while (step := current(chat.convo())) is not None:
            chat.reply("skip")
        said = chat.recommendation()
        assert said is not None and ("共享" in said or "Shared" in said), said


def test_a_service_described_at_the_kind_of_work_keeps_its_load(tmp_path: Path) -> None:
    """`部署推理服务，QPS 200，P99<50ms` typed at the kind of work: the questions a service is asked (QPS, P99) are
    known only once it is kept, and were left out; they are kept with it."""
    with driving("feishu", tmp_path) as chat:
        chat.start()
        chat.reply("部署推理服务，QPS 200，P99<50ms")
        values = chat.convo().values
        assert (values["workload"], values["qps"], values["p99_ms"]) == ("inference", 200.0, 50.0), values
        step = current(chat.convo())
        assert step is not None and step.ask.key not in ("qps", "p99_ms"), step


@PLATFORMS
def test_a_stranger_cannot_answer_someone_elses_profile(platform: str, tmp_path: Path) -> None:
    with driving(platform, tmp_path) as chat:
        chat.start()
        chat.press(None)
        chat.press("1-8h", user=STRANGER)
        chat.reply("about 10 hours", user=STRANGER)
        assert "duration" not in chat.convo().answers
        chat.reply("about 10 hours")
        assert chat.convo().answers["duration"] == "about 10 hours"


@PLATFORMS
def test_an_unreadable_typed_answer_keeps_the_question_open(platform: str, tmp_path: Path) -> None:
    with driving(platform, tmp_path) as chat:
        chat.start()
        chat.press(None)
        open_question = current(chat.convo())
        chat.reply("whenever the moon is full")
        assert current(chat.convo()) == open_question and "duration" not in chat.convo().answers


@PLATFORMS
def test_the_articles_quote_and_a_quote_missing_its_schedule(platform: str, tmp_path: Path) -> None:
    """One sub-command through each chat's own door: the worked example answers 5,600 and 784 RMB everywhere, and
    a quote without its schedule says what to give."""
    with driving(platform, tmp_path) as chat:
        said = chat.command("quote gpu=A100 hours=4x14 share=1/2")
        assert "5,600" in said and "784" in said
        assert "hours=4x14" in chat.command("quote gpu=A100")
        refused = chat.command("quote gpu=A100 hours=4x14 cards=2000 storage=lots")
        if platform == "slack":  # Slack says the person's locale (en here)
            assert "cards=2,000: must be at most 1,024" in refused and "storage=lots: not a number" in refused
        else:  # the others say no one's: a line of the bot's own words is said in the team's language (zh here)
            assert "cards=2,000：不能大于 1,024" in refused and "storage=lots：不是数字" in refused
        assert "Input should" not in refused


def test_a_quote_typed_without_keys_as_people_ask(tmp_path: Path) -> None:
    """`quote 4090 每天4小时 14天` was refused ("write key=value"). The core reads it once for every chat: one chat
    checks it here (the quote above goes through each chat's own door)."""
    with driving("dingtalk", tmp_path) as chat:
        bare = chat.command("quote A100 4x14 share=1/2")  # a GPU and a schedule as people type them, no keys
        assert "5,600" in bare and "784" in bare
        assert "RTX4090-24GB × 1" in chat.command("quote 4090 每天4小时 14天")
        # the card's memory typed apart (refused as a word not read), in Chinese numerals too
        assert "A100-40GB × 1" in chat.command("quote A100 40G 4x14")
        assert "A100-40GB × 1" in chat.command("quote a100 四十G 4x14")
        assert "RTX4090-24GB × 1" in chat.command("quote 4090 24G 4x14")
        maker = chat.command("quote 海光 每天4小时 14天")  # a maker for the card: which of its cards is asked
        assert "是哪一款" in maker and "DCU-Z100-32GB, K100-AI-64GB" in maker and "A100" not in maker
        twice = chat.command("quote A100 gpu=H100 4x14")  # a bare GPU beside gpu=: which one is meant is asked
        assert "“gpu”给出了两次" in twice
        stray = chat.command("quote A100 4x14 哈哈")  # the word not read is named, not the schedule that was
        assert "无法识别“哈哈”" in stray and "4x14" not in stray.split("：")[0], stray


@PLATFORMS
def test_the_digests_released_is_the_owners_to_press(platform: str, tmp_path: Path) -> None:
    """The digest's button through each chat's own door: pressed by someone else it changes nothing, by the item's
    owner it releases the item."""
    with driving(platform, tmp_path) as chat:
        chat.digest()
        chat.press_released(STRANGER)
        assert not chat.released()
        chat.press_released(STARTER)
        assert chat.released()


@PLATFORMS
def test_track_takes_an_owner_as_the_chat_names_people(platform: str, tmp_path: Path) -> None:
    """owner= took only Slack's and Feishu's ids: in DingTalk and WeCom no one could track a box for someone else,
    and each was told to give a Slack member ID. What names no person is refused with the chat's own form. The
    owner is told in their own words, without "this chat" (their direct chat is not where it was tracked)."""
    with driving(platform, tmp_path) as chat:
        owner = chat.ids[STRANGER]  # type: ignore[attr-defined]
        said = chat.command(f"track instance box-9 gpu=A100 price=14/h owner={owner}")
        assert "box-9" in said and "this chat" not in said and "this conversation" not in said, said
        rentals = Rentals(chat.deps.store)
        owners = {i.name: i.owner for team in rentals.teams() for i in rentals.instances(team)}
        assert owners == {"box-9": owner}
        refused = chat.command("track instance box-8 gpu=A100 price=14/h owner=张三")
        form = {"slack": "U0123ABCD", "feishu": "ou_…", "dingtalk": "<userId>", "wecom": "<userid>"}[platform]
        assert "张三" in refused and form in refused and ("Slack" in refused) == (platform == "slack"), refused
        # owner=me is the person typing: in DingTalk and WeCom "me" was kept as a userId, an item no one could release
        chat.command("track instance box-7 gpu=A100 price=14/h owner=me")
        chat.command("track instance box-6 gpu=A100 price=14/h owner=我")
        owners = {i.name: i.owner for team in rentals.teams() for i in rentals.instances(team)}
        assert owners["box-7"] == owners["box-6"] == chat.ids[STARTER]  # type: ignore[attr-defined]
        billing = chat.command("billing box-7")  # the owner's to manage: how it bills, not "only its owner @me"
        assert "box-7" in billing and "@me" not in billing and "me>" not in billing, billing


@PLATFORMS
def test_help_in_either_language_and_the_bots_own_words_in_the_teams(platform: str, tmp_path: Path) -> None:
    """Every sub-command is an English word. Where a chat says no one's language (Feishu, DingTalk, WeCom), `help`
    or `list` typed by a Chinese team was answered in English, and `帮助` was an unknown sub-command: Chinese help
    could not be had at all. A line of the bot's own words is said in the team's language (zh here); `帮助`, `？`
    and `help zh|en` ask for the help, the last in the language named. Slack says the person's locale (en here)."""
    with driving(platform, tmp_path) as chat:
        assert "`help` (or `帮助`" in chat.command("help en")
        assert "`help`（或 `帮助`" in chat.command("help zh")
        if platform == "slack":
            assert "`help` (or `帮助`" in chat.command("帮助")
            return
        for said in ("帮助", "help", "？"):
            assert "`help`（或 `帮助`" in chat.command(said), said
        assert "本" in chat.command("list") and "Tracked" not in chat.command("list")
        assert "I did not understand" in chat.command("about 10 hours")  # words of English: English


@pytest.mark.parametrize(
    ("typed", "default", "said"),
    [
        ("list", Lang.ZH, Lang.ZH),
        ("track box1 gpu=A100 price=14/h started=yesterday", Lang.ZH, Lang.ZH),
        ("10h mem=70/80 mp=no freq=daily resume=no", Lang.ZH, Lang.ZH),
        ("", Lang.ZH, Lang.ZH),
        ("list", Lang.EN, Lang.EN),
        ("track box1 gpu=A100 started=昨天9点", Lang.EN, Lang.ZH),
        ("about 10 hours", Lang.ZH, Lang.EN),
        ("大约10小时", Lang.EN, Lang.ZH),
        ("42", Lang.ZH, Lang.ZH),
        ("lsit", Lang.ZH, Lang.ZH),  # a sub-command misspelt is still the bot's word: the team's language
        ("lora", Lang.ZH, Lang.EN),  # an answer, near no sub-command
        ("autodl 500", Lang.ZH, Lang.ZH),  # a provider and a figure are in no language: a Chinese team's balance
        ("A100 vs H100", Lang.ZH, Lang.ZH),
        ("4090 x2 40G", Lang.ZH, Lang.ZH),
        ("autodl 500", Lang.EN, Lang.EN),
        ("cheapest H100", Lang.ZH, Lang.EN),  # a word of English among the names
        ("box1 is off", Lang.ZH, Lang.EN),
        ("👍", Lang.ZH, Lang.ZH),  # no word at all: the team's
    ],
)
def test_the_language_a_typed_line_is_answered_in(typed: str, default: Lang, said: Lang) -> None:
    assert typed_lang(typed, default) is said


def test_amounts_times_days_and_languages_typed_in_chinese(tmp_path: Path) -> None:
    """A Chinese team typed `budget llm 2万`, `balance autodl 三百`, `remind at 9点半`, `周一到周五` and `remind lang
    中文`: each was refused with the usage. The core reads them for every chat; one chat checks it here."""
    with driving("wecom", tmp_path) as chat:
        assert "¥20,000" in chat.command("budget llm 2万")
        assert "¥300" in chat.command("balance autodl 三百")
        said = chat.command("remind at 9点半 Asia/Shanghai 周一到周五")
        assert "09:30" in said and "周一至周五" in said, said
        assert "使用英文" in chat.command("remind lang 英文")
        assert "box1" in chat.command("track box1 gpu=A100 price=两块五/小时")
        assert "¥2.5/小时" in chat.command("list")
        # and the next round, each refused before: the time without `at`, the days run into it, 周末, 北京时间,
        # a month's budget said as one, a cloud by its Chinese name, a month in Chinese numerals
        said = chat.command("remind 每天早上9点")
        assert "09:00" in said and "每天" in said, said
        said = chat.command("remind at 9:30 周末 北京时间")
        assert "09:30" in said and "周六、周日" in said and "Asia/Shanghai" in said, said
        assert "¥30,000" in chat.command("budget llm 每月 3万")
        assert "本月还没有计入它的花费" in chat.command("budget")  # not "at this rate ¥0 by 12-31, 100% under"
        # no project named: the whole team's budget (it was a budget of a project named 每月)
        assert "全队的预算：每月 ¥5,000" in chat.command("预算 每月 5000")
        listed = chat.command("budget")
        assert listed.index("全队") < listed.index("llm") and "每月" not in listed.replace("每月 ¥", ""), listed
        assert "已删除全队的预算" in chat.command("budget off") and "全队" not in chat.command("budget")
        assert "aliyun" in chat.command("balance 阿里云 3000")
        assert "11-01 至 11-30" in chat.command("report 十一月")


def test_machines_prices_times_and_quotes_typed_in_chinese(tmp_path: Path) -> None:
    """The next rounds, apart from the test above: WeCom takes 30 messages a group a minute, and the bot's pacer
    holds the 31st for the rest of the minute, as it should."""
    with driving("wecom", tmp_path) as chat:
        # a machine as platforms list it, cards and prices as people say them (each refused before)
        for typed in ("track m1 gpu=A100*8 price=80/h", "track m2 gpu=A100 cards=8卡 price=每小时80元",
                      "track m3 gpu=A100 80G cards=8张 price=80/h started=昨天 9:00"):  # fmt: skip
            assert "m" in chat.command(typed)
        rentals = Rentals(chat.deps.store)
        kept = {i.name: (i.gpu, i.cards, i.price, str(i.unit)) for t in rentals.teams() for i in rentals.instances(t)}
        assert kept["m1"] == kept["m2"] == kept["m3"] == ("A100-80GB", 8, 80, "hour"), kept
        assert "8 张卡" in chat.command("track m4 gpu=A100*8 cards=4 price=80/h")  # the two counts differ: asked
        # a time in Chinese numerals, without at=; days and a grace as said aloud (each refused before)
        assert "23:00" in chat.command("开关机 m3 off 昨晚十一点")
        said = chat.command("提醒 工作日 早上九点")
        assert "09:00" in said and "周一至周五" in said, said
        assert "不是时长" not in chat.command("act notify grace=两小时")
        assert "A100-80GB × 8" in chat.command("quote A100*8 每天4小时 14天")
        monthly = chat.command("报价 A100 8卡 包月")  # cards and a month's rental said bare: refused before
        assert "A100-80GB × 8 的费用：每天 24 小时 × 30 天" in monthly and "按卡·月" in monthly, monthly
        assert "A100-80GB × 8" in chat.command("quote A100 8 cards 4x14")
        # no cards, or more than any machine: that range said, not "whole cards; a slice is share=" (as 1.5 is)
        assert "`cards`: 无法识别“0卡”：必须大于零" in chat.command("quote A100 0卡 4x14")
        assert "最多 1024 张卡" in chat.command("track m9 gpu=A100 price=2/h cards=十万张")
        assert "需要整卡数量" in chat.command("quote A100 cards=1.5 4x14")
        assert "（收到“0”）" in chat.command("budget 0")  # the whole team's words said back (it said “”)
        assert "每月 ¥717" in chat.command("登记 存储 数据盘 size=2T price=三毛五一个G一个月")  # 存储: storage
        assert "已由" in chat.command("删除存储 数据盘")
        assert "共 200 GPU 小时" in chat.command("quote H100 200卡时")  # a total said bare, as --gpu-hours
        assert "$778" in chat.command("quote A100 4x14 currency=美元")  # a currency by its Chinese name
        assert "$500" in chat.command("budget llm 500 美元")
        assert "（不限地区）" in chat.command("quote A100 4x14 compare=yes")  # not "(any)"
        listed = chat.command("列表")  # a Chinese name; a machine's price said as the machine's, not a card's
        assert "m1" in listed and listed.count("¥80/小时（8 卡合计）") == 3, listed
        assert "A100-80GB × 1" in chat.command("报价 A100 4x14")
        assert "是想输入 `list` 吗" in chat.command("lsit")  # a misspelt sub-command: the nearest is named
        # switches and act's modes by their Chinese words (each refused naming off, on, notify or stop)
        assert "不再出现在每日提醒中" in chat.command("act 关闭") and "不会停机" in chat.command("act 提醒")
        assert "提醒已关闭" in chat.command("remind 关闭")
        assert "不再发送每周报告" in chat.command("report 关闭") and "将在每周" in chat.command("report 开启")
