"""Each Slack handler called directly: a real Deps on SQLite, a WebClient pointed at the local fake Slack."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from slack_bolt import Ack
from slack_sdk import WebClient

from bot.chat import conversation
from bot.deps import Deps, build_deps
from bot.slack import press
from bot.slack.chat import SlackChat
from bot.slack.client import YieldingClient
from bot.slack.ids import COMMAND, Action, Callback
from bot.slack.listeners import commands, profile_form, thread
from bot.slack.request import SlackRequest
from bot.slack.routes import ROUTES, route_for
from bot.slack.ui.blocks import ButtonValue
from bot.slack.ui.forms import FormMeta
from bot.state import Conversation
from bot.text import Lang
from tests.support.fake_slack import FakeSlack, fake_slack
from tests.support.slack_harness import settings_for


@dataclass
class World:
    fake: FakeSlack
    deps: Deps
    client: WebClient

    def request(self, body: dict[str, Any]) -> SlackRequest:
        return SlackRequest(body, self.client)

    @property
    def chat(self) -> SlackChat:
        return SlackChat(self.client, self.deps)

    def started(self, user: str = "U1", channel: str = "C1", kind: str | None = None) -> Conversation:
        """A profile with its first question (the kind of work) answered: skipped unless `kind` says."""
        convo = conversation.start(self.deps, self.chat, team="T1", channel=channel, user=user, lang=Lang.EN)
        conversation.take_answer(self.deps, self.chat, convo, "workload", kind, user)
        return convo


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with fake_slack() as fake:
        deps = build_deps(settings_for(tmp_path, fake))
        yield World(fake, deps, YieldingClient(token="xoxb-test-token", base_url=fake.api_url))
        deps.store.close()


def command(fake: FakeSlack, text: str) -> dict[str, Any]:
    return {
        "team_id": "T1",
        "channel_id": "C1",
        "user_id": "U1",
        "command": COMMAND,
        "text": text,
        "response_url": fake.response_url("r"),
        "trigger_id": "1.2.3",
    }


def click(action_id: str, value: ButtonValue, user: str = "U1", channel: str = "C1") -> dict[str, Any]:
    return {
        "type": "block_actions",
        "user": {"id": user, "team_id": "T1"},
        "team": {"id": "T1"},
        "channel": {"id": channel},
        "trigger_id": "3.4.5",
        "actions": [{"action_id": action_id, "value": value.model_dump_json()}],
    }


def form_view(meta: FormMeta, answers: dict[str, str]) -> dict[str, Any]:
    values = {key: {"value": {"type": "plain_text_input", "value": text}} for key, text in answers.items()}
    return {
        "type": "view_submission",
        "user": {"id": "U1", "team_id": "T1"},
        "team": {"id": "T1"},
        "view": {
            "callback_id": Callback.PROFILE_FORM.value,
            "private_metadata": meta.model_dump_json(),
            "state": {"values": values},
        },
    }


FIVE = {"duration": "10h", "memory": "70/80", "model_parallel": "no", "frequency": "daily", "can_resume": "no"}


def test_every_route_names_a_handler_and_the_replay_finds_the_same_one() -> None:
    assert route_for("block_actions", {"actions": [{"action_id": Action.CHANGE.value}]}).handler is press.on_button  # type: ignore[union-attr]
    assert route_for("block_actions", {"actions": [{"action_id": "answer:3"}]}).handler is press.on_button  # type: ignore[union-attr]
    assert route_for("command", {"command": COMMAND}).handler is commands.on_command  # type: ignore[union-attr]
    assert route_for("event", {"event": {"type": "reaction_added"}}) is None
    assert route_for("block_actions", {"actions": [{"action_id": "answer:x"}]}) is None
    assert all(route.what and route.handler.__doc__ for route in ROUTES)


def test_command_without_text_starts_a_profile(world: World) -> None:
    commands.on_command(world.deps, world.request(command(world.fake, "")))
    root, question = world.fake.of("chat.postMessage")
    assert "<@U1>" in root["text"] and question["thread_ts"] == root["_ts"]
    assert question["text"] == "What kind of workload is it?"  # the kind of work first, optional
    assert "*Optional*" in json.dumps(question["blocks"])


def test_command_help_answers_through_the_response_url(world: World) -> None:
    commands.on_command(world.deps, world.request(command(world.fake, "help")))
    (reply,) = world.fake.of("response_url")
    assert reply["response_type"] == "ephemeral" and "`form`" in reply["text"]


def test_command_with_every_answer_posts_the_recommendation(world: World) -> None:
    commands.on_command(world.deps, world.request(command(world.fake, "10h mem=70/80 mp=no freq=daily resume=no")))
    (posted,) = world.fake.of("chat.postMessage")
    assert posted["blocks"][0]["text"]["text"] == "Recommendation: Dedicated card: A100-80GB"


def test_command_error_is_in_the_users_language(world: World) -> None:
    world.fake.locales["U1"] = "zh-CN"
    commands.on_command(world.deps, world.request(command(world.fake, "bananas")))
    (reply,) = world.fake.of("response_url")
    assert "未知的子命令“bananas”" in reply["text"]


def test_answer_button_records_the_answer_and_asks_the_next_question(world: World) -> None:
    convo = world.started()
    press.on_button(world.deps, world.request(click("answer:2", ButtonValue(c=convo.id, k="duration", v=">8h"))))
    kept = world.deps.conversations.get(convo.id)
    assert kept is not None and kept.answers == {"workload": "", "duration": ">8h"}
    assert kept.values["duration"]["bucket"] == "long"  # parsed once, kept parsed
    assert world.fake.of("chat.update")
    assert "Question 2/5" in json.dumps(world.fake.of("chat.postMessage")[-1]["blocks"])


def test_inference_asks_only_what_a_service_needs(world: World) -> None:
    convo = world.started(kind="inference")
    asked = [world.fake.of("chat.postMessage")[-1]["text"]]
    for key, text in (("qps", "300"), ("p99_ms", "40ms"), ("serving_hours", "24/7")):
        conversation.take_answer(world.deps, world.chat, world.deps.conversations.get(convo.id), key, text, "U1")  # type: ignore[arg-type]
        asked.append(world.fake.of("chat.postMessage")[-1]["text"])
    assert asked == [
        "Peak QPS?",
        "P99 latency target (ms)?",
        "How many hours a day does the service run?",
        "Does the memory peak exceed 80% of one card?",
    ]


def test_answer_button_from_someone_else_is_refused_ephemerally(world: World) -> None:
    convo = world.started()
    press.on_button(
        world.deps, world.request(click("answer:0", ButtonValue(c=convo.id, k="duration", v="<1h"), user="U2"))
    )
    (refusal,) = world.fake.of("chat.postEphemeral")
    assert refusal["user"] == "U2" and "<@U1>" in refusal["text"]
    assert world.deps.conversations.get(convo.id).answers == {"workload": ""}  # type: ignore[union-attr]


def test_change_an_answer_opens_the_form_prefilled(world: World) -> None:
    convo = world.started()
    conversation.take_answer(world.deps, world.chat, world.deps.conversations.get(convo.id), "duration", "10h", "U1")  # type: ignore[arg-type]
    press.on_button(world.deps, world.request(click(Action.CHANGE.value, ButtonValue(c=convo.id))))
    (opened,) = world.fake.of("views.open")
    duration = next(b for b in opened["view"]["blocks"] if b["block_id"] == "duration")
    assert duration["element"]["initial_value"] == "10h"
    assert json.loads(opened["view"]["private_metadata"])["c"] == convo.id


def test_start_over_starts_a_new_profile_in_the_same_channel(world: World) -> None:
    convo = world.started()
    press.on_button(world.deps, world.request(click(Action.RESTART.value, ButtonValue(c=convo.id))))
    roots = [p for p in world.fake.of("chat.postMessage") if "thread_ts" not in p]
    assert len(roots) == 2 and roots[1]["channel"] == "C1"


def test_new_profile_from_app_home_starts_in_a_dm(world: World) -> None:
    body = {
        "type": "block_actions",
        "user": {"id": "U1", "team_id": "T1"},
        "actions": [{"action_id": Action.NEW_PROFILE.value, "value": "home"}],
    }
    press.on_button(world.deps, world.request(body))
    assert world.fake.of("conversations.open")[0]["users"] == "U1"
    assert world.fake.of("chat.postMessage")[0]["channel"] == "DU1"


def message(convo: Conversation, text: str, user: str = "U1") -> dict[str, Any]:
    return {
        "type": "event_callback",
        "team_id": "T1",
        "event_id": "Ev1",
        "event": {
            "type": "message",
            "user": user,
            "text": text,
            "channel": convo.channel,
            "ts": "1700000099.000001",
            "thread_ts": convo.thread_ts,
        },
    }


def test_a_reply_in_the_thread_answers_the_open_question(world: World) -> None:
    convo = world.started()
    thread.on_message(world.deps, world.request(message(convo, "about 10 hours")))
    assert world.deps.conversations.get(convo.id).answers == {"workload": "", "duration": "about 10 hours"}  # type: ignore[union-attr]


def test_an_unreadable_reply_says_what_is_accepted_and_keeps_nothing(world: World) -> None:
    convo = world.started()
    thread.on_message(world.deps, world.request(message(convo, "soonish")))
    assert "Could not read 'soonish'" in world.fake.of("chat.postMessage")[-1]["text"]
    assert world.deps.conversations.get(convo.id).answers == {"workload": ""}  # type: ignore[union-attr]


def test_a_reply_from_someone_else_warns_the_starter_once(world: World) -> None:
    convo = world.started()
    for _ in range(2):
        thread.on_message(world.deps, world.request(message(convo, "10h", user="U2")))
    (warning,) = world.fake.of("chat.postEphemeral")
    assert warning["user"] == "U1" and "<@U2>" in warning["text"]


def test_app_home_publishes_recent_advice_and_sources(world: World) -> None:
    body = {
        "type": "event_callback",
        "team_id": "T1",
        "event": {"type": "app_home_opened", "user": "U1", "tab": "home"},
    }
    thread.on_home(world.deps, world.request(body))
    (published,) = world.fake.of("views.publish")
    assert published["user_id"] == "U1" and "`ratecard`" in json.dumps(published["view"])


def test_form_with_a_bad_answer_is_refused_under_its_field(world: World) -> None:
    ack = Ack()
    body = form_view(FormMeta(ch="C1", lang="en"), FIVE | {"memory": "lots"})
    profile_form.check_form(world.deps, ack, world.request(body))
    assert ack.response is not None
    errors = json.loads(ack.response.body)["errors"]
    assert set(errors) == {"memory"} and "Could not read 'lots'" in errors["memory"]


def test_a_valid_form_posts_the_recommendation(world: World) -> None:
    profile_form.on_form(world.deps, world.request(form_view(FormMeta(ch="C1", lang="en"), FIVE)))
    (posted,) = world.fake.of("chat.postMessage")
    assert posted["channel"] == "C1" and "Dedicated card" in posted["blocks"][0]["text"]["text"]


def test_app_home_shows_every_source_prices_status_shows(tmp_path: Path) -> None:
    feed = tmp_path / "feed.csv"
    feed.write_text(
        "provider,instance_type,gpu,gpu_count,pricing_model,amount,currency,unit\n"
        "x,A100 hourly,A100-80GB,1,on-demand,20,CNY,hour\n"
    )
    with fake_slack() as fake:
        deps = build_deps(settings_for(tmp_path, fake, feed=str(feed)))
        client = YieldingClient(token="xoxb-test-token", base_url=fake.api_url)
        body = {
            "type": "event_callback",
            "team_id": "T1",
            "event": {"type": "app_home_opened", "user": "U1", "tab": "home"},
        }
        thread.on_home(deps, SlackRequest(body, client))
        view = json.dumps(fake.of("views.publish")[0]["view"])
        assert [s.source for s in deps.prices.status()] == ["ratecard", "feed"]
        assert "`ratecard`" in view and "`feed`" in view and "never" in view  # the feed was not refreshed yet
        deps.store.close()


def test_question_2_offers_the_estimate_from_the_model_and_a_reply_naming_it_answers(world: World) -> None:
    convo = world.started()
    conversation.take_answer(world.deps, world.chat, world.deps.conversations.get(convo.id), "duration", "3h", "U1")  # type: ignore[arg-type]
    asked = world.fake.of("chat.postMessage")[-1]
    buttons = [e for b in asked["blocks"] if b["type"] == "actions" for e in b["elements"]]
    offer = next(b for b in buttons if b["action_id"] == Action.FROM_MODEL.value)
    assert offer["text"]["text"] == "Estimate from the model"
    press.on_button(
        world.deps, world.request(click(Action.FROM_MODEL.value, ButtonValue.model_validate_json(offer["value"])))
    )
    prompt = world.fake.of("chat.postMessage")[-1]
    assert prompt["thread_ts"] == convo.thread_ts and "`7B LoRA`" in prompt["text"]
    assert world.deps.conversations.get(convo.id).answers == {"workload": "", "duration": "3h"}  # type: ignore[union-attr]
    thread.on_message(world.deps, world.request(message(convo, "7B LoRA")))
    kept = world.deps.conversations.get(convo.id)
    assert kept is not None and kept.values["memory"]["model_size_b"] == 7 and kept.values["memory"]["method"] == "lora"
    for key, text in (("model_parallel", "no"), ("frequency", "daily"), ("can_resume", "yes")):
        conversation.take_answer(world.deps, world.chat, world.deps.conversations.get(convo.id), key, text, "U1")  # type: ignore[arg-type]
    while (kept := world.deps.conversations.get(convo.id)) is not None and (
        step := conversation.current(kept)
    ) is not None:
        conversation.take_answer(world.deps, world.chat, kept, step.ask.key, None, "U1")  # skip the optional ones
    said = json.dumps([p.get("blocks") for p in world.fake.of("chat.postMessage")], ensure_ascii=False)
    assert "Memory estimated from the model (7B, LoRA): about 19 GB" in said and "MIG slice 1g.20gb" in said
