"""A digest card's buttons in Feishu: only the item's owner or an admin (a tenant administrator, the chat's owner
or a manager) may answer; anyone else is told so and nothing changes. The answer is done, then the card is
composed again from what is still listed, with the answer's line at the top (Feishu's press carries no card)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol
from zoneinfo import ZoneInfo

from bot.actions.warn import Warner
from bot.app import found
from bot.app.found import Pressed
from bot.chat import digest_answers
from bot.chat.digest_messages import digest_message
from bot.chat.ids import Action
from bot.chat.message import Message, Section
from bot.chat.port import Place, Posted
from bot.deps import Deps
from bot.digest.send import digests
from bot.feishu.chat import FeishuChat
from bot.state.rentals import RentalError, Rentals
from bot.state.schedules import Schedules
from bot.text import Lang

if TYPE_CHECKING:
    from bot.feishu.events import Toast

log = logging.getLogger(__name__)


def on_press(
    deps: Deps, chat: FeishuChat, action: Action, value: str, team: str, chat_id: str, message_id: str, user: str
) -> Toast | None:
    from bot.feishu.events import Toast

    kind, _, name = value.partition(":")
    rentals = Rentals(deps.store)
    is_storage = action in digest_answers.STORAGE_ACTIONS
    found = rentals.storage_named(team, name) if is_storage else rentals.instance(team, name)
    if found is None or kind not in ("i", "s"):
        return Toast("feishu.toast_gone", "warning")  # gone, or another tenant's item: nothing to change here
    if user != found.owner and not chat.is_admin(user, chat_id):
        return Toast("feishu.toast_not_yours", "error")
    plan = Schedules(deps.store, deps.settings.default_schedule()).of(team, chat_id)
    zone, lang = ZoneInfo(plan.zone), Lang(plan.lang) if plan.lang else deps.settings.lang
    try:
        done = digest_answers.answer(deps, rentals, action, team, name, f"<@{user}>", zone)
    except RentalError:
        return Toast("feishu.toast_gone", "warning")
    if message_id:
        _show(deps, chat, rentals, team, chat_id, message_id, zone, lang, done)
    return None


def on_found(
    deps: Deps, chat: FeishuChat, action: Action, value: str, team: str, chat_id: str, message_id: str, user: str
) -> Toast | None:
    """Claim (anyone of the tenant: a press comes from one) or Not ours (an admin) on a found item."""
    from bot.feishu.events import Toast

    kind, _, name = value.partition(":")  # a found item's buttons carry "fi:NAME" or "fs:NAME"
    kind = kind.removeprefix("f")
    if kind not in ("i", "s") or not name:
        return Toast("feishu.toast_gone", "warning")
    plan = Schedules(deps.store, deps.settings.default_schedule()).of(team, chat_id)
    zone, lang = ZoneInfo(plan.zone), Lang(plan.lang) if plan.lang else deps.settings.lang
    press = Pressed(action, team, chat_id, kind, name, user, message_id or None, lang)
    outcome = found.answer(deps, press, lang, member=True, is_admin=lambda: chat.is_admin(user, chat_id))
    if outcome.refused is not None:
        return Toast("feishu.toast_refused", "error", (("why", outcome.refused),))
    if message_id and outcome.done is not None:
        said = outcome.done
        _show(deps, chat, Rentals(deps.store), team, chat_id, message_id, zone, lang, Done(lambda _: said))
    return None


@dataclass(frozen=True)
class Done:
    """A found item's answer as a digest card shows it at the top: one line, no follow-ups."""

    line: Callable[[Lang], str]

    def follow_ups(self, lang: Lang) -> list[Section]:
        return []


class Said(Protocol):
    def line(self, lang: Lang) -> str: ...

    def follow_ups(self, lang: Lang) -> list[Section]: ...


def _show(
    deps: Deps,
    chat: FeishuChat,
    rentals: Rentals,
    team: str,
    chat_id: str,
    message_id: str,
    zone: ZoneInfo,
    lang: Lang,
    done: Said,
) -> None:
    """The digest card composed again from what is still listed, with the answer's line at the top."""
    now = deps.now()
    digest = Warner(rentals).annotate(
        team,
        chat_id,
        digests(rentals, team, [chat_id], now, deps.policy.idle, deps.policy.metering, zone)[chat_id],
        now,
    )

    def say(each: Lang) -> Message:
        shown = digest_message(digest, each, zone, done=done.line(each))
        return replace(shown, sections=(shown.sections[0], *done.follow_ups(each), *shown.sections[1:]))

    chat.update(Posted(Place(chat.platform, team, chat_id), message_id), say, lang)
