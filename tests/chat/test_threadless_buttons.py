"""Every button DingTalk's and WeCom's cards render does what it says (their cards take no input, so the form
buttons answer with the words to type): the recommendation's Change an answer, Start over and I rented this, and
each of a digest item's answers, pressed by the item's owner."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.chat.ids import Action
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from rules.power import Power
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI
from tests.support.dingtalk_harness import running_dingtalk
from tests.support.fake_dingtalk import CORP
from tests.support.fake_wecom import BOT_ID
from tests.support.idle_item import idle_item
from tests.support.pending import settled
from tests.support.wecom_harness import running_wecom

ANA, GROUP = "ana01", "cidGroupA1b2C3"
PROFILE = "10h mem=70/80 mp=no freq=daily resume=no"  # every answer at once: the recommendation at once


@dataclass
class Robot:
    """One robot chat's fake, as these tests press it."""

    deps: Any
    clock: Any
    team: str
    say: Callable[[str], None]  # Ana types a line in the group
    cards: Callable[[], list[tuple[str, list[tuple[str, Any]]]]]  # each card's text and its (action, button)
    press: Callable[[int, Any], None]  # Ana presses a button of the card at that index
    outlet: Any


@contextmanager
def robot(chat: str, tmp_path: Path) -> Iterator[Robot]:
    if chat == "dingtalk":
        with running_dingtalk(tmp_path, lang="en") as h:
            space = f"dtv1.card//IM_GROUP.{GROUP}"

            def cards() -> list[tuple[str, list[tuple[str, Any]]]]:
                shown = h.fake.in_space(space)
                return [(c.params.get("title", "") + "\n" + c.params.get("markdown", "") + c.params.get("tips", ""),
                         [(json.loads(b["value"])["action"], b) for b in c.buttons]) for c in shown]  # fmt: skip

            def press(index: int, button: Any) -> None:
                h.fake.press(h.fake.in_space(space)[index], button, ANA)
                settled(h.deps)

            def say(text: str) -> None:
                h.fake.message(text, ANA, group=GROUP)
                settled(h.deps)

            yield Robot(h.deps, h.clock, f"dingtalk:{CORP}", say, cards, press, h.gateway.wing().outlet)
    else:
        with running_wecom(tmp_path, lang="en") as w:

            def cards() -> list[tuple[str, list[tuple[str, Any]]]]:
                return [(s.text, [(json.loads(b["key"])["a"], b) for b in s.buttons]) for s in w.fake.to(GROUP)]

            def press(index: int, button: Any) -> None:
                w.settled(w.fake.click(w.fake.to(GROUP)[index], button, ANA))

            def say(text: str) -> None:
                w.settled(w.fake.message(text, ANA, group=GROUP))

            yield Robot(w.deps, w.clock, f"wecom:{BOT_ID}", say, cards, press, w.gateway.wing().outlet)


def _last_with(r: Robot, action: str) -> tuple[int, Any]:
    shown = r.cards()
    index = max(i for i, (_text, buttons) in enumerate(shown) if any(a == action for a, _ in buttons))
    return index, next(b for a, b in shown[index][1] if a == action)


CHATS = pytest.mark.parametrize("chat", ["dingtalk", "wecom"])


@CHATS
def test_the_recommendations_buttons_each_do_what_they_say(chat: str, tmp_path: Path) -> None:
    with robot(chat, tmp_path) as r:
        r.say(PROFILE)  # the line the robot's help and its form sentence give: it works as given
        assert any("Recommendation" in text for text, _ in r.cards())
        before = len(r.cards())
        r.press(*_last_with(r, Action.CHANGE))  # the answers to type again, with those given
        said = r.cards()[before][0].replace("\\", "")
        assert "type every answer at once" in said and "dur=10h" in said and "mem=70/80" in said
        r.press(*_last_with(r, Action.RENTED))  # what to type to track it, with its card
        said = r.cards()[-1][0].replace("\\", "")
        assert "track NAME gpu=" in said and "price=" in said
        _typed_as_given(r, said, "rented-1")
        count = len(r.cards())
        r.press(*_last_with(r, Action.RESTART))  # the questions again, from the first
        assert len(r.cards()) > count and any(a == Action.SKIP for a, _ in r.cards()[-1][1])


def _typed_as_given(r: Robot, said: str, name: str) -> None:
    """The line a form button or `track` alone gives, typed with its name and price put in, tracks the box."""
    [line] = re.findall(r"`(track NAME [^`]*)`", said)
    r.say(line.replace("NAME", name).replace("…", "400"))
    assert Rentals(r.deps.store).instance(r.team, name) is not None, (line, r.cards()[-1][0])


@CHATS
def test_track_alone_gives_a_line_that_tracks_as_typed(chat: str, tmp_path: Path) -> None:
    """`track` alone suggested `track NAME price=…/day`, which was refused for want of gpu=."""
    with robot(chat, tmp_path) as r:
        r.say("track")
        _typed_as_given(r, r.cards()[-1][0].replace("\\", ""), "box-1")


ITEM_BUTTONS = [a.value for a in (Action.RELEASED, Action.STILL_NEEDED, Action.SNOOZE_WEEK, Action.STOPPED)]


@CHATS
@pytest.mark.parametrize("action", ITEM_BUTTONS)
def test_each_digest_button_answers_for_its_item(chat: str, action: str, tmp_path: Path) -> None:
    from datetime import timedelta

    from bot.digest.due import run_due

    with robot(chat, tmp_path) as r:
        r.clock.now = MONDAY_0910_SHANGHAI + timedelta(minutes=21)
        rentals = idle_item(r.deps.store, r.clock.now, r.team, GROUP, ANA)
        [sent] = run_due(r.deps, r.outlet)
        assert sent.status == "sent"
        index, button = _last_with(r, action)
        r.press(index, button)
        shown, buttons = r.cards()[index]  # the card again, the answer at its top
        assert "train-1" in shown.split("\n")[0] or "train-1" in shown[:200]
        # answered: its button gone from the card, for everyone (DingTalk's update by key once kept them). Not for
        # Stopped: the harness's clock stands still, and a stop said at this very instant has lasted no time yet
        if action != Action.STOPPED:
            assert action not in [a for a, _ in buttons]
        inst = rentals.instance(r.team, "train-1")
        assert inst is not None
        if action == Action.RELEASED:
            assert inst.released_at is not None
        elif action in (Action.STILL_NEEDED, Action.SNOOZE_WEEK):
            assert inst.snoozed_until is not None
        else:
            [*_, last] = PowerLog(r.deps.store).reports([inst.id])[inst.id]
            assert last.state is Power.OFF and last.source == "person"


@CHATS
def test_the_line_the_help_and_the_form_sentence_suggest_is_the_one_that_works(chat: str) -> None:
    from importlib import import_module

    from bot.text import Lang

    words = import_module(f"bot.{chat}.words")
    for lang in Lang:
        assert PROFILE in words.help_text(lang, "team", "channel") and PROFILE in words.line("form", lang)
