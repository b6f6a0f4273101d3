"""A Feishu card press as the core's Press (bot/app/buttons.py), worked after the press was answered (its toast says
it is being done: bot/feishu/gateway.py): a refusal is a card only the presser sees (a direct message where Feishu
has none), a form is a form card in the thread, and a digest item's answer sends the digest card again from what is
still listed, with the answer at the top (Feishu's press carries no card to edit)."""

from __future__ import annotations

import logging

from bot.app import card_again
from bot.app.bug_said import bug_said
from bot.app.buttons import Done, Press, Refusal, handler_for
from bot.app.invocation import Form
from bot.chat.port import ChatError, Place
from bot.deps import Deps
from bot.feishu import forms
from bot.feishu.chat import FeishuChat
from bot.feishu.gateway import CARD_AGAIN_KIND
from bot.state import Conversation
from bot.state.schedules import Schedules
from bot.text import Lang

log = logging.getLogger(__name__)


def on_press(
    deps: Deps,
    chat: FeishuChat,
    action: str,
    value: str,
    where: tuple[str, str, str],
    user: str,
    input_key: str | None,
    part: int = 0,
) -> None:
    """Any button of the core's table, done. `where`: tenant, chat, message; `part`: which of a message's cards the
    pressed one is."""
    handler = handler_for(action)
    if handler is None:
        return
    team, chat_id, message_id = where
    plan = Schedules(deps.store, deps.settings.digest.default_schedule()).of(team, chat_id)
    lang = Lang.named_or(plan.lang, deps.settings.files.lang)  # the chat's language: Feishu tells no user's

    def refuse(refusal: Refusal) -> None:
        tell(refusal.said(lang))

    def tell(said: str) -> None:
        # its owner named as an <at>, which Feishu shows by name (without notifying them in a card only one sees)
        try:
            chat.tell(Place(chat.platform, team, chat_id), user, said, lang)
        except ChatError as exc:  # nothing was done, so nothing is left to redo: said in the log instead
            log.warning("a refused press of %s was not told why (Feishu code %s)", user, exc.code)

    def show_done(_kind: str, _name_: str, done: Done) -> None:
        if message_id:  # a request of its own: a card Feishu did not take is sent again without the press redone
            card_again.keep_and_send(deps, chat, input_key, CARD_AGAIN_KIND, where, plan.zone, lang, done, part=part)

    def open_form(kind: Form, initial: dict[str, str], convo: Conversation | None) -> None:
        if convo is not None:  # Change an answer: in the profile's thread and language, editing it
            place = Place(chat.platform, team, chat_id or convo.channel, convo.thread_ts)
            forms.send(chat, place, kind, initial, Lang(convo.lang), convo.id)
        else:  # under the pressed card
            forms.send(chat, Place(chat.platform, team, chat_id, message_id or None), kind, initial, lang)

    with bug_said(tell, lang, "a button press"):
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
