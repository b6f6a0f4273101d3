"""The two forms as Feishu cards (JSON 2.0 form containers): the profile's five questions at once (`form`, Change
an answer) and tracking an instance (`track` alone, I rented this). A form's inputs come back together when its
submit button is pressed (`card.action.trigger` with `action.form_value`); the submit button carries no callback
value inside a form, so its `name` says which form it is, for whom and in which language. A wrong answer is
shown on the card itself, under its field, and the card stays open for the corrected submission (as Slack's
modal does); a right one is read the same as Slack's modal (bot/app/forms.py).

Facts from Feishu's card docs (form container, input): a form sits at the card's root; every input in it needs a
`name`; the submit button needs `form_action_type: submit`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.app.forms import PROFILE_KEYS, TRACK_FIELDS, read_answers, read_track, typed
from bot.app.invocation import Form, channel_zone
from bot.app.track import billed_since, cached_price, track_or_reissue, tracked_text
from bot.chat import conversation
from bot.chat.message import plain
from bot.chat.port import Actor, ChatError, Place, Posted
from bot.deps import Deps
from bot.feishu.cards import LOCALE
from bot.feishu.chat import FeishuChat
from bot.feishu.markup import markdown
from bot.feishu.sdk import FeishuError
from bot.fields.answers import FORM_FIELDS
from bot.state.rentals import RentalError, Rentals
from bot.text import Lang, t
from bot.text.catalogue import tw
from bot.text.format import forms

SUBMIT = re.compile(r"gpu_advisor_form_(profile|track)_(en|zh)_([0-9a-f]{0,32})")


@dataclass(frozen=True)
class Submitted:
    """A form's submission: which form, its language, the profile it changes (Change an answer), the texts."""

    kind: Form
    lang: Lang
    convo: str
    texts: dict[str, Any]


def submit_name(kind: Form, lang: Lang, convo: str | None) -> str:
    return f"gpu_advisor_form_{kind.value}_{lang.value}_{convo or ''}"


def submitted(action: dict[str, Any]) -> Submitted | None:
    """The submission a card action is, when it is one of these forms' submit buttons."""
    found = SUBMIT.fullmatch(str(action.get("name") or ""))
    values = action.get("form_value")
    if found is None or not isinstance(values, dict):
        return None
    return Submitted(Form(found[1]), Lang(found[2]), found[3], values)


def _fields(kind: Form, lang: Lang) -> list[tuple[str, str, str]]:
    """(key, label, placeholder) of each field."""
    if kind is Form.TRACK:
        return [(k, t(f"track_form.{k}", lang), t(f"track_form.{k}.hint", lang)[:150]) for k, _ in TRACK_FIELDS]
    return [(f.key, t(f"question.{f.key}", lang), forms(f.ask.accepted(), lang)[0]) for f in FORM_FIELDS]


def card(kind: Form, lang: Lang, initial: dict[str, str], errors: dict[str, str], convo: str | None) -> dict[str, Any]:
    title = t("track_form.title" if kind is Form.TRACK else "feishu.form_title", lang)
    elements: list[dict[str, Any]] = []
    for key, label, placeholder in _fields(kind, lang):
        shown = f"**{label}**" + (f"\n<font color='red'>{markdown(errors[key])}</font>" if key in errors else "")
        elements.append({"tag": "markdown", "content": shown})
        field: dict[str, Any] = {
            "tag": "input",
            "name": key,
            "placeholder": {"tag": "plain_text", "content": placeholder},
        }
        if initial.get(key):
            field["default_value"] = initial[key]
        elements.append(field)
    elements.append(
        {
            "tag": "button",
            "name": submit_name(kind, lang, convo),
            "text": {
                "tag": "plain_text",
                "content": t("track_form.submit" if kind is Form.TRACK else "feishu.form_submit", lang),
            },
            "type": "primary",
            "form_action_type": "submit",
        }
    )
    return {
        "schema": "2.0",
        "config": {"update_multi": True, "locales": [LOCALE[lang]]},
        "header": {"title": {"tag": "plain_text", "content": title}, "template": "blue"},
        "body": {"elements": [{"tag": "form", "name": "gpu_advisor_form", "elements": elements}]},
    }


def send(chat: FeishuChat, where: Place, kind: Form, initial: dict[str, str], lang: Lang, convo: str = "") -> None:
    """The form, where the command was typed (in the thread under it), pre-filled with `initial`."""
    content = card(kind, lang, initial, {}, convo)
    try:
        if where.thread:
            chat.reply(where.thread, content)
        else:
            chat.send("open_id" if where.channel.startswith("ou_") else "chat_id", where.channel, content)
    except FeishuError as exc:
        raise ChatError(str(exc.code)) from exc


def on_submit(
    deps: Deps, chat: FeishuChat, form: Submitted, team: str, chat_id: str, message_id: str, user: str, key: str | None
) -> None:
    """A form submitted: its answers taken, or its card shown again with the errors under the fields."""
    if form.kind is Form.TRACK:
        texts = typed(form.texts, tuple(k for k, _ in TRACK_FIELDS))
        currency, now = deps.settings.files.currency, deps.now()
        # Feishu's events say no one's time zone: a typed start is read on the chat's clock
        fields, errors = read_track(
            texts, form.lang, currency, cached_price(deps), now, lambda: channel_zone(deps, team, chat_id or user)
        )
        if not errors and Rentals(deps.store).instance(team, fields["name"]) is not None:
            errors["name"] = tw("error.rental.instance_exists", form.lang, "form", name=fields["name"])
    else:
        texts = typed(form.texts, PROFILE_KEYS)
        values, errors = read_answers(texts, form.lang)
    if errors:
        again = card(form.kind, form.lang, texts, errors, form.convo or None)
        chat.update_card(Posted(Place(chat.platform, team, chat_id), message_id), again)
        return
    if form.kind is Form.TRACK:
        _track(deps, chat, form, team, chat_id, user, fields, key)
        return
    convo = deps.conversations.get(form.convo, team) if form.convo else None
    if convo is None:
        convo = deps.conversations.create(team=team, channel=chat_id or user, user=user, lang=form.lang.value)
    conversation.set_answers(convo, texts, values)
    conversation.finish(deps, chat, convo)


def _track(
    deps: Deps,
    chat: FeishuChat,
    form: Submitted,
    team: str,
    chat_id: str,
    user: str,
    fields: dict[str, Any],
    key: str | None,
) -> None:
    source = fields.pop("price_source", None)
    name, zone = fields.pop("name"), fields.pop("started_zone")
    fields |= {"owner": user, "channel": chat_id or user}
    try:
        made, token, again = track_or_reissue(Rentals(deps.store), team, key, name, fields)
        said = tracked_text(made, token, again, source, form.lang) + billed_since(made.started_at, zone, form.lang)
    except RentalError as exc:
        said = tw(f"error.rental.{exc.code}", form.lang, "chat", **exc.params)
    chat.direct(Actor(chat.platform, team, user), lambda each: plain(said, each), form.lang)  # the token: theirs
