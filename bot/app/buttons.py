"""Every button, in one table that every chat dispatches through: what pressing it does, the same on every chat
(a reader finds what happens when someone presses Y in one hop: handler_for(Y)). A chat's wing turns its press
into a `Press` (who, where, the value the button carries) with what only it can do: open a form, say a line to
the presser alone, put an answer where a digest's item was."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from bot.app import found
from bot.app.invocation import Form
from bot.app.track import rented
from bot.chat import conversation, digest_answers
from bot.chat.digest_answers import ITEM_ACTIONS, STORAGE_ACTIONS, Answered
from bot.chat.digest_messages import pressed_item
from bot.chat.ids import Action, ButtonValue
from bot.chat.message import Section, plain
from bot.chat.port import Actor, Chat
from bot.chat.profile_messages import from_model_prompt
from bot.deps import Deps
from bot.state import Conversation
from bot.state.rentals import RentalError, Rentals
from bot.state.schedules import Schedules
from bot.text import Lang, t
from bot.text.format import mention
from rules.questions import is_inference


@dataclass(frozen=True)
class Refusal:
    """Why a press did nothing, for the presser alone: a catalogue key and its figures; `gone` when what it was
    about is no longer there (released, deleted, another team's), else it was not theirs to press."""

    key: str
    params: dict[str, str] = field(default_factory=dict)
    gone: bool = False
    text: str | None = None  # already said (in the presser's language), instead of key and params

    def said(self, lang: Lang) -> str:
        return self.text if self.text is not None else t(self.key, lang, **self.params)


@dataclass(frozen=True)
class Done:
    """What takes a digest item's place: its line, and the questions that follow (storage a release left)."""

    line: Callable[[Lang], str]
    follow_ups: Callable[[Lang], list[Section]] = lambda _lang: []


@dataclass
class Press:
    deps: Deps
    chat: Chat
    team: str
    channel: str
    user: str
    action: str
    value: str  # what the button carries: a ButtonValue's JSON, or a digest item's "kind:name"
    lang: Lang  # the presser's
    posted_in: Lang  # the language the pressed message was posted in (a digest keeps its own)
    message_id: str | None
    is_admin: Callable[[], bool]
    is_member: Callable[[], bool]  # of this team (a guest from another team is not)
    # a form, pre-filled; for a profile (Change an answer), in its language, and its answers replace the profile's
    open_form: Callable[[Form, dict[str, str], Conversation | None], None]
    refuse: Callable[[Refusal], None]  # to the presser alone
    show_done: Callable[[str, str, Done], None]  # kind ("i", "s", "fi", "fs"), name, what takes its place
    request_key: str | None = None


def _convo(press: Press) -> Conversation | None:
    try:
        value = ButtonValue.model_validate_json(press.value)
    except ValueError:
        return None
    convo = press.deps.conversations.get(value.c, press.team)  # another team's press finds nothing
    if convo is None:
        press.refuse(Refusal("app.button_gone", gone=True))
    return convo


def answer(press: Press) -> None:
    """A usual-answer button, or Skip: the answer to the open question, if the presser may answer."""
    value = ButtonValue.model_validate_json(press.value)
    deps = press.deps
    with deps.store.lock(value.c):
        convo = deps.conversations.get(value.c, press.team)
        if convo is None:
            press.refuse(Refusal("app.button_gone", gone=True))
            return
        if conversation.admit(deps, press.chat, convo, press.channel or convo.channel, press.user):
            conversation.take_answer(deps, press.chat, convo, value.k, value.v, press.user, press.request_key)


def change(press: Press) -> None:
    """Change an answer: the profile form, pre-filled with the answers given, for the presser."""
    if (convo := _convo(press)) is not None:
        press.open_form(Form.PROFILE, dict(convo.answers), convo)


def restart(press: Press) -> None:
    """Start over: a new profile for the presser, where this one was."""
    if (convo := _convo(press)) is not None:
        channel = press.channel or convo.channel
        conversation.start(press.deps, press.chat, team=press.team, channel=channel, user=press.user, lang=press.lang)


def new_profile(press: Press) -> None:
    """New profile (Slack's App Home): a profile in the presser's direct chat with the bot."""
    direct = press.chat.direct_chat(Actor(press.chat.platform, press.team, press.user))
    conversation.start(press.deps, press.chat, team=press.team, channel=direct, user=press.user, lang=press.lang)


def rented_(press: Press) -> None:
    """I rented this: the track form, pre-filled with what was recommended."""
    if (convo := _convo(press)) is not None:
        press.open_form(Form.TRACK, rented(press.deps, convo), None)  # in the presser's language


def from_model(press: Press) -> None:
    """Estimate from the model (question 2): what to reply ("7B LoRA"), said in the thread."""
    convo = _convo(press)
    if convo is None or not convo.thread_ts:
        return
    lang = Lang(convo.lang)
    prompt = from_model_prompt(is_inference(conversation.parsed(convo)), press.user, lang)
    press.chat.post(conversation.place_of(press.chat, convo), lambda _: plain(prompt, lang), lang)


def digest_item(press: Press) -> None:
    """A digest item's answer (Released, Still needed, Snooze, Stopped, Started, Deleted, Keep): its owner's or an
    admin's; done, then said where the item was, in the digest's language and the channel's zone."""
    deps, action, team = press.deps, Action(press.action), press.team
    kind, name, ident = pressed_item(press.value)
    rentals = Rentals(deps.store)
    is_storage = action in STORAGE_ACTIONS
    item = rentals.storage_named(team, name) if is_storage else rentals.instance(team, name)
    if item is None or kind not in ("", "i", "s"):
        press.refuse(Refusal("digest.gone", {"name": name}, gone=True))
        return
    if ident is not None and item.id != ident:  # the card's item went, and its name is another's now
        press.refuse(Refusal("digest.name_taken_since", {"name": name}, gone=True))
        return
    if press.user != item.owner and not press.is_admin():
        press.refuse(Refusal("digest.not_yours", {"owner": mention(item.owner), "name": name}))
        return
    zone = ZoneInfo(Schedules(deps.store, deps.settings.digest.default_schedule()).of(team, press.channel).zone)
    try:
        done: Answered = digest_answers.answer(deps, rentals, action, team, name, press.user, zone)
    except RentalError:
        press.refuse(Refusal("digest.gone", {"name": name}, gone=True))
        return
    press.show_done("s" if is_storage else "i", name, Done(done.line, done.follow_ups))


def found_item(press: Press) -> None:
    """Claim (anyone of the team) or Not ours (an admin) on an item discovery found that nobody owns."""
    kind, _, name = press.value.rpartition(":") if ":" in press.value else ("", "", press.value)
    kind = kind.removeprefix("f") or "i"
    if kind not in ("i", "s") or not name:
        press.refuse(Refusal("digest.gone", {"name": name}, gone=True))
        return
    action = Action(press.action)
    pressed = found.Pressed(
        action, press.team, press.channel, kind, name, press.user, press.message_id, press.posted_in
    )
    member = action is not Action.CLAIM or press.is_member()
    outcome = found.answer(press.deps, pressed, press.lang, member=member, is_admin=press.is_admin)
    if outcome.refused is not None:
        press.refuse(Refusal("", gone=outcome.gone, text=outcome.refused))
    elif outcome.done is not None:
        line = outcome.done
        press.show_done(f"f{kind}", name, Done(lambda _lang: line))


BUTTONS: dict[str, Callable[[Press], None]] = {
    Action.SKIP: answer,
    Action.CHANGE: change,
    Action.RESTART: restart,
    Action.NEW_PROFILE: new_profile,
    Action.RENTED: rented_,
    Action.FROM_MODEL: from_model,
    **dict.fromkeys(ITEM_ACTIONS, digest_item),
    Action.CLAIM: found_item,
    Action.NOT_OURS: found_item,
}


def handler_for(action: str) -> Callable[[Press], None] | None:
    """What pressing `action` does; None for a button this app did not make. Each usual answer is its own action
    (answer:0, answer:1, …), so that Slack keeps each button's id apart."""
    if action.startswith(f"{Action.ANSWER}:") and action.removeprefix(f"{Action.ANSWER}:").isdigit():
        return answer
    return BUTTONS.get(action)
