"""A pressed digest message updated again, as a request of its own (every chat whose press can be redone).

A press on a digest item does two things: its answer (released, snoozed, ...) written to the state, then the
message updated to show it, a round trip to the chat that can fail (the chat down, its rate limit). Were the two
one request, a message not updated would have the press redone: a release redone finds the item released and says
it is gone, and the message is never updated. So the update is kept as a request of its own (`<press key>:card`,
in the inbox) before it is made, and the press is done once its answer is written; an update not made is redone by
itself (by the chat's redo job, or at the next start): the digest composed again from what is still listed, with
the answer's line at the top, in each language the message may be in.

The first try is the chat's own (Slack edits the pressed message's blocks in place; Feishu and DingTalk send the
card composed again); a redo always composes it again, since what the chat sent with the press may be stale by then."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

from bot.app import digest_card
from bot.app.buttons import Done
from bot.chat.port import Chat
from bot.deps import Deps
from bot.state.rentals import Rentals
from bot.text import Lang

log = logging.getLogger(__name__)

SUFFIX = ":card"  # the kept update's key: its press's key and this


def keep_and_send(
    deps: Deps,
    chat: Chat,
    key: str | None,
    kind: str | None,
    where: tuple[str, str, str],
    zone: str,
    lang: Lang,
    done: Done,
    *,
    first: Callable[[], None] | None = None,
    stays_pending: Callable[[Exception], bool] = lambda _exc: True,
    part: int = 0,
) -> None:
    """The message updated, kept first under its own key and `kind` (the chat's, so that its redo job takes it; None
    for a chat that can change the message only while answering the press, WeCom: made then, never kept).
    `first`: the chat's own first try (else the digest composed again). An error for which `stays_pending` is
    true leaves the update to be redone by itself; any other is raised, the update done (it would fail again).
    Where it cannot be kept (a press with no key, an answer with questions of its own, which say more than a
    line), it is made as part of the press. `part`: which of a message's parts the pressed one is (Feishu's long
    digest in several cards)."""
    team, chat_id, message_id = where
    make = first or partial(
        digest_card.show, deps, chat, Rentals(deps.store), team, chat_id, message_id, ZoneInfo(zone), lang, done, part
    )
    if kind is None or key is None or any(done.follow_ups(each) for each in Lang):
        make()
        return
    body: dict[str, Any] = {
        "team": team,
        "chat": chat_id,
        "message": message_id,
        "zone": zone,
        "lang": lang.value,
        "line": {each.value: done.line(each) for each in Lang},
        "part": part,
    }
    update_key = key + SUFFIX
    if not deps.inbox.enqueue(update_key, kind, body):
        return  # kept by an earlier try of this press: made then, or left to be redone by itself
    try:
        make()
    except Exception as exc:
        if not stays_pending(exc):
            deps.inbox.done(update_key)
            raise
        log.warning("the update of %s was not made (%s); it stays pending and is made again by itself", key, exc)
        return
    deps.inbox.done(update_key)


def send(deps: Deps, chat: Chat, body: dict[str, Any]) -> None:
    """A kept update made: the digest composed again from what is still listed, its answer's line at the top."""
    line: dict[str, str] = body["line"]
    done = Done(lambda each: line[each.value])
    where = (body["team"], body["chat"], body["message"])
    rentals = Rentals(deps.store)
    part = int(body.get("part") or 0)  # kept before parts were: the first
    digest_card.show(deps, chat, rentals, *where, ZoneInfo(body["zone"]), Lang(body["lang"]), done, part)
