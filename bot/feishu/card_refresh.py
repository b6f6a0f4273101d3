"""A digest card sent again after a press, by serve's work process rather than the front door.

Once a press on a digest item is answered (its toast told: bot/feishu/ack.py), what is left is the card composed
again from what is still listed and patched in place: the channel's month figures, its items' samples and power,
then an Open API round trip, about two thirds of a press's work (issue 50: pressed back to back, that work in the
front door slowed the next presses' acknowledgements 8-fold). In serve's front door with a work process, the press
keeps a request of its own for it (`hand_over`: in the spool or inbox, as a Feishu message is kept) and hands it
to the work process, which sends the card (`send`) and marks it done; one not done is redone like any other kept
request (at the next start, or by the redo job). The answer's line goes rendered in each language: the card says
it in both. An answer that adds questions (a release that left storage) is sent where it was made."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from bot.app import digest_card
from bot.app.buttons import Done
from bot.chat.port import Chat
from bot.deps import Deps
from bot.state.rentals import Rentals
from bot.text import Lang

KIND = "feishu_card_refresh"  # a kept request: a digest card to send again


def hand_over(deps: Deps, key: str | None, where: tuple[str, str, str], zone: str, lang: Lang, done: Done) -> bool:
    """Kept and handed to serve's work process: True. False where this process sends the card itself (no work
    process here, a press with no key to keep it under, an answer with questions of its own)."""
    if deps.work is None or key is None or any(done.follow_ups(each) for each in Lang):
        return False
    team, chat_id, message_id = where
    body: dict[str, Any] = {
        "team": team,
        "chat": chat_id,
        "message": message_id,
        "zone": zone,
        "lang": lang.value,
        "line": {each.value: done.line(each) for each in Lang},
    }
    deps.keep_for_work(f"{key}:card", KIND, body)
    return True


def send(deps: Deps, chat: Chat, body: dict[str, Any]) -> None:
    """The card of a handed-over press composed again and patched, with its answer's line at the top."""
    line: dict[str, str] = body["line"]
    done = Done(lambda each: line[each.value])
    where = (body["team"], body["chat"], body["message"])
    rentals = Rentals(deps.store)
    digest_card.show(deps, chat, rentals, *where, ZoneInfo(body["zone"]), Lang(body["lang"]), done)
