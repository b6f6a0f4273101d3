"""A third chat, written in this folder alone (wing.py), runs the profile and the digest's buttons on the one
core: nothing outside this folder names it (issue 46). If a chat needed an edit elsewhere to work, this would not
pass."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from bot.chat.ids import Action
from bot.chat.port import platform_of
from bot.deps import build_deps
from bot.digest.due import run_due
from bot.server.chats import Chats
from bot.settings import Settings
from bot.state.rentals import Rentals
from rules.samples import Sample
from tests.chat.third_chat.wing import MEMO, MemoChat, MemoWing, pressed, typed
from tests.digest.test_schedule import FIELDS, MONDAY_0910_SHANGHAI
from tests.support.cli import ROOT
from tests.support.slack_harness import Clock
from tests.support.state_template import with_migrated_state

TEAM, ROOM, ANA, BOB = "memo:acme", "room-1", "ana", "bob"


def deps_for(tmp_path: Path):  # type: ignore[no-untyped-def]
    settings = Settings(db=tmp_path / "bot.db", azure_enabled=False, ecb_enabled=False, lang="en")
    with_migrated_state(settings)
    clock = Clock()
    clock.now = MONDAY_0910_SHANGHAI
    return build_deps(settings, now=clock), clock


def test_the_third_chat_is_named_by_its_prefix_alone() -> None:
    assert platform_of(TEAM) is MEMO and platform_of("T123") is not MEMO and platform_of("feishu:x") is not MEMO


def test_a_profile_typed_and_pressed_in_the_third_chat_ends_in_the_recommendation(tmp_path: Path) -> None:
    deps, _ = deps_for(tmp_path)
    chat = MemoChat()
    typed(deps, chat, TEAM, ROOM, ANA, "")  # a profile: its root, then question 1 in its thread
    root = chat.sent[0]
    convo = deps.conversations.by_thread(TEAM, ROOM, root.id)
    assert convo is not None
    first = chat.in_thread(root.id)[-1]
    skip = next(b for b in first.buttons if b.action == Action.SKIP)
    assert pressed(deps, chat, TEAM, ROOM, BOB, skip.action, skip.value) == []  # not Bob's: told, not taken
    assert chat.private.get(BOB) and "workload" not in (deps.conversations.get(convo.id) or convo).answers
    for _ in range(12):  # the starter presses the first usual answer of each question, or Skip
        current = deps.conversations.get(convo.id)
        assert current is not None
        if current.status == "done":
            break
        question = chat.in_thread(root.id)[-1]
        button = next(b for b in question.buttons if b.action.startswith("answer:") or b.action == Action.SKIP)
        assert pressed(deps, chat, TEAM, ROOM, ANA, button.action, button.value) == []
    recommendation = chat.in_thread(root.id)[-1]
    assert recommendation.title is not None and recommendation.title.startswith("Recommendation")
    change = next(b for b in recommendation.buttons if b.action == Action.CHANGE)
    pressed(deps, chat, TEAM, ROOM, ANA, change.action, change.value)
    assert chat.forms and chat.forms[-1][0] == "profile"  # Change an answer: the form, pre-filled


def test_the_digest_and_its_buttons_in_the_third_chat(tmp_path: Path) -> None:
    deps, clock = deps_for(tmp_path)
    chat = MemoChat()
    typed(deps, chat, TEAM, ROOM, ANA, "remind at 09:30 Asia/Shanghai daily")
    rentals = Rentals(deps.store)
    inst, _ = rentals.track_instance(
        TEAM, "train-1", FIELDS | {"owner": ANA, "channel": ROOM, "started_at": clock.now - timedelta(hours=9)}
    )
    quiet = [Sample(clock.now - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(480, -241, -5)]
    rentals.add_samples(inst.id, quiet, [None] * len(quiet))
    clock.now += timedelta(minutes=21)
    [sent] = run_due(deps, Chats([MemoWing(chat)]).outlet)  # the runtime's one list, with this chat in it
    assert sent.status == "sent" and sent.channel == ROOM
    digest = chat.sent[-1].message
    released = next(b for s in digest.sections for b in s.buttons if b.action == Action.RELEASED)
    assert pressed(deps, chat, TEAM, ROOM, BOB, released.action, released.value)  # not Bob's: refused
    assert pressed(deps, chat, TEAM, ROOM, ANA, released.action, released.value) == []
    assert "released" in chat.sent[-1].message.text
    assert (rentals.instance(TEAM, "train-1") or inst).released_at is not None


def test_nothing_outside_this_folder_names_the_third_chat() -> None:
    """ "memo" in prose is a word; what would name this chat is its prefix, memo:."""
    named = [
        str(path.relative_to(ROOT))
        for folder in ("bot", "rules", "pricing", "docs")
        for path in (ROOT / folder).rglob("*")
        if path.suffix in (".py", ".md", ".yaml") and "memo:" in path.read_text("utf-8")
    ]
    assert named == []
