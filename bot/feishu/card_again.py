"""A digest card sent again after a press, as a request of its own.

A press on a digest item does two things: its answer (released, snoozed, ...) written to the state, then the card
composed again from what is still listed and patched in place, an Open API round trip that can fail (Feishu down,
its frequency limit). Were the two one request, a card that failed would have the press redone: a release redone
finds the item released and says it is gone, and the card is never patched. So the card is kept as a request of its
own (`<press key>:card`, in the inbox) before it is sent, and the press is done once its answer is written; a card
not sent is redone by itself, at the next start or by the redo job, with the answer's line it was made with (in
each language: the card says it in both)."""

from __future__ import annotations

import logging
from typing import Any
from zoneinfo import ZoneInfo

from bot.app import digest_card
from bot.app.buttons import Done
from bot.chat.port import Chat
from bot.deps import Deps
from bot.feishu.gateway import CARD_AGAIN_KIND as KIND
from bot.state.rentals import Rentals
from bot.text import Lang

log = logging.getLogger(__name__)


def keep_and_send(
    deps: Deps, chat: Chat, key: str | None, where: tuple[str, str, str], zone: str, lang: Lang, done: Done
) -> None:
    """The card sent again, kept first under its own key; where it cannot be kept (a press with no key, an answer
    with questions of its own, which say more than a line), sent as part of the press."""
    team, chat_id, message_id = where
    if key is None or any(done.follow_ups(each) for each in Lang):
        digest_card.show(deps, chat, Rentals(deps.store), team, chat_id, message_id, ZoneInfo(zone), lang, done)
        return
    body: dict[str, Any] = {
        "team": team,
        "chat": chat_id,
        "message": message_id,
        "zone": zone,
        "lang": lang.value,
        "line": {each.value: done.line(each) for each in Lang},
    }
    card_key = f"{key}:card"
    if not deps.inbox.enqueue(card_key, KIND, body):
        return  # kept by an earlier try of this press: sent then, or left to be redone by itself
    try:
        send(deps, chat, body)
    except Exception:
        log.exception("the card of %s was not sent; it stays pending and is sent again by itself", key)
        return
    deps.inbox.done(card_key)


def send(deps: Deps, chat: Chat, body: dict[str, Any]) -> None:
    """A kept card composed again and patched, with its answer's line at the top."""
    line: dict[str, str] = body["line"]
    done = Done(lambda each: line[each.value])
    where = (body["team"], body["chat"], body["message"])
    rentals = Rentals(deps.store)
    digest_card.show(deps, chat, rentals, *where, ZoneInfo(body["zone"]), Lang(body["lang"]), done)
