"""A Feishu card press as the core's Press (bot/app/buttons.py): a refusal is the press's toast (Feishu shows it
to the presser alone), a form is a form card in the thread, and a digest item's answer sends the digest card again
from what is still listed, with the answer at the top (Feishu's press carries no card to edit)."""

from __future__ import annotations

from dataclasses import replace
from zoneinfo import ZoneInfo

from bot.app import digest_card
from bot.app.buttons import Done, Press, Refusal, handler_for
from bot.app.invocation import Form
from bot.chat.port import Place
from bot.deps import Deps
from bot.feishu import ack, card_refresh, forms
from bot.feishu.chat import FeishuChat
from bot.feishu.toast import Toast
from bot.state import Conversation
from bot.state.rentals import Rentals
from bot.state.schedules import Schedules
from bot.text import Lang
from bot.text.spans import PLAIN, render


def on_press(
    deps: Deps,
    chat: FeishuChat,
    action: str,
    value: str,
    where: tuple[str, str, str],
    user: str,
    input_key: str | None,
) -> Toast | None:
    """Any button of the core's table; its toast (None: Feishu's "Got it"). `where`: tenant, chat, message."""
    handler = handler_for(action)
    if handler is None:
        return None
    team, chat_id, message_id = where
    plan = Schedules(deps.store, deps.settings.digest.default_schedule()).of(team, chat_id)
    lang = Lang.named_or(plan.lang, deps.settings.files.lang)  # the chat's language: Feishu tells no user's
    refused: list[Toast] = []

    def refuse(refusal: Refusal) -> None:
        said = render(refusal.said(lang), replace(PLAIN, mention=lambda user: _name(chat, user)))
        refused.append(Toast("feishu.toast_refused", "warning" if refusal.gone else "error", (("why", said),)))
        ack.tell(refused[-1])  # the presser is answered now; the rest of the work goes on after

    def show_done(_kind: str, _name_: str, done: Done) -> None:
        ack.writing()  # done and not refused: the presser is answered before the card is made and sent again
        if message_id and not card_refresh.hand_over(deps, input_key, where, plan.zone, lang, done):
            rentals = Rentals(deps.store)
            digest_card.show(deps, chat, rentals, team, chat_id, message_id, ZoneInfo(plan.zone), lang, done)

    def open_form(kind: Form, initial: dict[str, str], convo: Conversation | None) -> None:
        ack.writing()  # the form is what the press asked for: answered before it is made and sent
        if convo is not None:  # Change an answer: in the profile's thread and language, editing it
            place = Place(chat.platform, team, chat_id or convo.channel, convo.thread_ts)
            forms.send(chat, place, kind, initial, Lang(convo.lang), convo.id)
        else:  # under the pressed card
            forms.send(chat, Place(chat.platform, team, chat_id, message_id or None), kind, initial, lang)

    handler(
        Press(
            deps,
            chat,
            team=team,
            channel=chat_id,
            user=user,
            action=action,
            value=value,
            lang=lang,
            posted_in=lang,
            message_id=message_id or None,
            is_admin=lambda: chat.is_admin(user, chat_id),
            is_member=lambda: True,  # a press comes from someone of the tenant it names
            open_form=open_form,
            refuse=refuse,
            show_done=show_done,
            request_key=input_key,
        )
    )
    return refused[0] if refused else None


def _name(chat: FeishuChat, open_id: str) -> str:
    """A person as a toast (plain text) names them: their name from the contacts, else their id."""
    found = chat.user(open_id)
    return str(found.name) if found is not None and getattr(found, "name", None) else open_id
