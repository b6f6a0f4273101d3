"""A chat whose robot has no threads (DingTalk, WeCom), the same on each: a message whose first word is no
sub-command answers the profile its person has open in that conversation, anything else runs through the one
table; a sub-command is answered in the conversation it was typed in (what is for the person alone, in their chat
with the robot); a card's press goes to the one table of buttons, its refusal to the presser, a digest's answer
re-composing the pressed card. Each wing says how it sends, how it shows a refusal, and its own words."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from bot.app import card_again, item_words, memory_asked, table
from bot.app.bug_said import bug_said, taken_or_bug
from bot.app.buttons import Done, Press, Refusal, handler_for
from bot.app.capture import SentFile
from bot.app.free_words import free_words
from bot.app.invocation import Form, Invocation
from bot.app.thread import ThreadMessage, on_thread_message
from bot.chat import conversation
from bot.chat.message import Message, plain
from bot.chat.port import Actor, Chat, Place, Teller
from bot.chat.send_keys import send_key
from bot.deps import Deps
from bot.fields.answers import BY_KEY, inline_key
from bot.state import Conversation
from bot.state.schedules import Schedules
from bot.text import Lang
from rules.answers import answer_in_context
from rules.errors import NEEDS_ONE_MORE_WORD, ParseError
from rules.questions import skips


@dataclass(frozen=True)
class Wing:
    """What a threadless chat's wing says its own way."""

    chat: Chat
    teller: Callable[[Lang], Teller]
    help_text: Callable[[Lang, str, str], str]  # (lang, team, channel)
    line: Callable[[str, Lang], str]  # its lines: this_chat, see_help, form
    direct_prefix: str = ""  # a person's chat with the robot, as a channel: the prefix before their id
    # the inbox kind a pressed digest card's update is kept under, made again by itself when the chat could not be
    # reached (bot/app/card_again.py); None for a chat that changes a card only while answering its press (WeCom)
    card_again: str | None = None


def invocation(
    wing: Wing,
    deps: Deps,
    team: str,
    channel: str,
    user: str,
    lang: Lang,
    request_key: str | None,
    is_admin: Callable[[], bool],
) -> Invocation:
    chat, here, sends = wing.chat, Place(wing.chat.platform, team, channel), itertools.count()

    def key() -> str | None:
        return send_key(request_key, next(sends)) if request_key else None

    def say(message: Message) -> object:
        return chat.post(here, lambda _: message, lang, key=key())

    def open_form(kind: Form, initial: dict[str, str]) -> None:
        say(plain(form_line(wing, kind, initial, lang), lang))

    return Invocation(
        deps,
        team=team,
        channel=channel,
        user=user,
        lang=lang,
        answer=say,
        post=say,
        is_admin=is_admin,
        zone=lambda: None,
        chat=chat,
        announce=say,
        privately=lambda message: chat.direct(Actor(chat.platform, team, user), lambda _: message, lang, key=key()),
        teller=lambda: wing.teller(lang),
        open_form=open_form,
        help_text=lambda each: wing.help_text(each, team, channel),
        channel_name=wing.line("this_chat", lang),
        request_key=request_key,
        direct=bool(wing.direct_prefix) and channel.startswith(wing.direct_prefix),
    )


def form_line(wing: Wing, kind: Form, initial: dict[str, str], lang: Lang) -> str:
    """What a form would have asked, as the words to type instead (these chats' cards take no input): the profile's
    answers at once, with those given so far; or `track` with the instance's fields the recommendation named."""
    if kind is Form.TRACK:  # a line that runs once NAME and the price are put in: gpu= is required, so always there
        given = " ".join(f"{k}={v}" for k, v in ({"gpu": "A100-80GB"} | initial).items() if v)
        return wing.line("track_form", lang) + f"\n`track NAME {given} price=…/day`"
    answers = " ".join(_token(inline_key(k), v) for k, v in initial.items() if v and k in BY_KEY)
    return wing.line("form", lang) + (f"\n`{answers}`" if answers else "")


def _token(key: str, value: str) -> str:
    return f'{key}="{value}"' if " " in value else f"{key}={value}"


def typed(
    wing: Wing,
    deps: Deps,
    team: str,
    channel: str,
    user: str,
    text: str,
    request_key: str | None,
    is_admin: Callable[[], bool],
    file: SentFile | None = None,
) -> None:
    """A message to the robot: an answer to the person's open profile here (a file: its capture), or a
    sub-command."""
    lang, here = table.typed_lang(text, deps.settings.files.lang), Place(wing.chat.platform, team, channel)

    def say(line: str) -> None:
        wing.chat.post(here, lambda each: plain(line, each), lang)

    if taken_or_bug(
        lambda: _profile_took(wing, deps, (team, channel, user), text, request_key, file), say, lang, "a message"
    ):
        return
    inv = invocation(wing, deps, team, channel, user, lang, request_key, is_admin)
    table.run_answered(inv, text, wing.line("see_help", lang))


def _profile_took(
    wing: Wing, deps: Deps, where: tuple[str, str, str], text: str, request_key: str | None, file: SentFile | None
) -> bool:
    """Whether the message was the person's open profile's (an answer, a file), or a file said where it goes."""
    team, channel, user = where
    if file is not None:
        _sent_file(wing, deps, where, file, request_key)
        return True
    words = text.split()
    if words and words[0].lower() not in table.SUBCOMMANDS:  # words that are no command answer an open profile
        convo = deps.conversations.open_for(team, channel, user)
        if convo is not None and convo.thread_ts and not _asks_instead(convo, text, deps):
            reply = ThreadMessage(team, channel, convo.thread_ts, user, text, None, request_key)
            return on_thread_message(deps, wing.chat, wing.teller(Lang(convo.lang)), reply)
    return False


def _asks_instead(convo: Conversation, text: str, deps: Deps) -> bool:
    """Whether a message sent while a profile is open asks something else (`4090一天多少钱`, `查一下余额`, a Chinese
    sub-command glued to its first word, `报价A100 4x14`): no answer to its open question, but one the table answers.
    Without threads every message went to the profile, which refused it as an answer. An answer comes first:
    `关机后能接着跑` begins with 关机 and is the resume question's yes."""
    step = conversation.current(convo)
    if step is None or (not step.required and skips(text)):
        return False
    try:
        answer_in_context(step.ask.key, text, convo.values)
    except ParseError as exc:  # no answer to it: a tracked item's news (`训练机 关机了`, read only now), or a
        if item_words.reading(deps.store, convo.team, text) is not None:  # question the table answers, unless
            return True  # it is an answer that needs saying which, asked back
        glued = table.glued_name(text.split()[0]) if text.split() else None
        other = free_words(text) is not None or glued is not None or memory_asked.asked(text) is not None
        return other and exc.problem not in NEEDS_ONE_MORE_WORD
    return False


def unread(wing: Wing, deps: Deps, team: str, channel: str, text_lang: Lang | None = None) -> None:
    """A message the robot cannot read (a picture, voice): said what it reads instead."""
    lang, here = text_lang or deps.settings.files.lang, Place(wing.chat.platform, team, channel)
    wing.chat.post(here, lambda each: plain(wing.line("unread", each), each), lang)


def _sent_file(wing: Wing, deps: Deps, where: tuple[str, str, str], file: SentFile, request_key: str | None) -> None:
    """A file sent to the robot: the capture of the person's open profile here, else said where it goes."""
    team, channel, user = where
    convo = deps.conversations.open_for(team, channel, user)
    if convo is not None and convo.thread_ts:
        reply = ThreadMessage(team, channel, convo.thread_ts, user, "", file, request_key)
        if on_thread_message(deps, wing.chat, wing.teller(Lang(convo.lang)), reply):
            return
    lang, here = deps.settings.files.lang, Place(wing.chat.platform, team, channel)
    wing.chat.post(here, lambda each: plain(wing.line("no_profile", each), each), lang)


def pressed(
    wing: Wing,
    deps: Deps,
    where: tuple[str, str, str],
    user: str,
    action: str,
    value: str,
    request_key: str | None,
    is_admin: Callable[[], bool],
    refuse: Callable[[str], None],
) -> bool:
    """A card's button pressed: the one table's answer. `where`: team, channel, the card's id. `refuse` says a
    refusal to the presser alone. False when the action is no button of the table."""
    handler = handler_for(action)
    if handler is None:
        return False
    team, channel, card = where
    chat = wing.chat
    plan = Schedules(deps.store, deps.settings.digest.default_schedule()).of(team, channel)
    lang = Lang.named_or(plan.lang, deps.settings.files.lang)

    def refused(refusal: Refusal) -> None:
        refuse(refusal.said(lang))

    def show_done(_kind: str, _name: str, answered: Done) -> None:
        if card:
            card_again.keep_and_send(deps, chat, request_key, wing.card_again, where, plan.zone, lang, answered)

    def open_form(kind: Form, initial: dict[str, str], convo: Conversation | None) -> None:
        where_, said_in = (convo.channel, Lang(convo.lang)) if convo is not None else (channel, lang)
        text = form_line(wing, kind, initial, said_in)
        chat.post(Place(chat.platform, team, where_), lambda each: plain(text, each), said_in)

    with bug_said(refuse, lang, "a button press"):
        handler(
            Press(
                deps,
                chat,
                team=team,
                channel=channel,
                user=user,
                action=action,
                value=value,
                lang=lang,
                posted_in=lang,
                message_id=card or None,
                is_admin=is_admin,
                is_member=lambda: True,  # a press comes from someone of the organisation it names
                open_form=open_form,
                refuse=refused,
                show_done=show_done,
                request_key=request_key,
            )
        )
    return True
