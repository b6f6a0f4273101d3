"""A digest button's answer, the same on every chat: Released, Still needed, Snooze 1 week, Stopped, Started,
Deleted, Keep. The chat checks who pressed (the owner or an admin) and shows the answer where the item was."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.chat.digest_messages import item_section, when
from bot.chat.ids import Action
from bot.chat.message import Section
from bot.deps import Deps
from bot.state.actions import Actions
from bot.state.power import PowerLog
from bot.state.rentals import RentalError, Rentals
from bot.text import Lang, t
from bot.text.format import mention, money, show
from rules import metering
from rules.power import Power

SNOOZE = {Action.STILL_NEEDED: timedelta(days=1), Action.SNOOZE_WEEK: timedelta(days=7)}
STORAGE_ACTIONS = (Action.STORAGE_DELETED, Action.STORAGE_KEEP)
ITEM_ACTIONS = (Action.RELEASED, Action.STOPPED, Action.STARTED, *SNOOZE, *STORAGE_ACTIONS)


@dataclass
class Answered:
    """What a button did, to be said in any language: its catalogue key and figures, and the storage a released
    instance left behind (each asked about, with its own buttons)."""

    key: str
    params: dict[str, str]
    left: list[tuple[str, dict[str, str], int]] = field(default_factory=list)  # storage: name, figures, row id

    def line(self, lang: Lang) -> str:
        return t(self.key, lang, **self.params)

    def follow_ups(self, lang: Lang) -> list[Section]:
        return storage_questions(self.left, lang)


def storage_left(rentals: Rentals, team: str, instance_id: int, name: str) -> list[tuple[str, dict[str, str], int]]:
    """The storage a released instance (`name`) left behind and is still kept: each one's name, the figures of its
    question (Deleted / Keep) and its row id."""
    left = []
    for kept in rentals.storage(team, instance_id=instance_id, kept_only=True):
        figures = {
            "name": name,
            "storage": kept.name,
            "size": show(kept.size_gb),
            "per_month": money(kept.size_gb * kept.price_gb_month, kept.currency),
        }
        left.append((kept.name, figures, kept.id))
    return left


def storage_questions(left: list[tuple[str, dict[str, str], int]], lang: Lang) -> list[Section]:
    """storage_left's questions, each with its buttons."""
    return [
        item_section("s", name, t("digest.storage_question", lang, **figures), lang, ident)
        for name, figures, ident in left
    ]


def answer(
    deps: Deps,
    rentals: Rentals,
    action: Action,
    team: str,
    name: str,
    user: str,
    zone: ZoneInfo,
    until: datetime | None = None,
) -> Answered:
    """Do what the button says, as `user` (the presser's id); what takes the item's place (times in `zone`).
    `until`: Still needed until then, said in words (`训练机 周五之前还要用`), not for the button's day. RentalError
    when the item is gone (released or deleted meanwhile)."""
    now, who = deps.now(), mention(user)
    if action is Action.RELEASED:
        released = rentals.release(team, name, now, user)
        return Answered(
            "digest.done.released", {"name": name, "user": who}, storage_left(rentals, team, released.id, name)
        )
    if action in (Action.STOPPED, Action.STARTED):  # off or on from now: an hourly meter follows
        inst = rentals.instance(team, name)
        if inst is None or inst.released_at is not None:
            raise RentalError("already_released", name=name)
        state = Power.OFF if action is Action.STOPPED else Power.ON
        PowerLog(deps.store, deps.policy.metering).say(inst.id, state, now, now, source="person", by=user, zone=zone)
        if state is Power.ON:
            return Answered("digest.done.started", {"name": name, "user": who})
        key = "digest.done.stopped_billed" if metering.keeps(inst) else "digest.done.stopped"
        return Answered(key, {"name": name, "user": who})
    if action in SNOOZE:
        until = until or now + SNOOZE[action]
        snoozed = rentals.snooze(team, name, until)
        said = {"name": name, "user": who, "until": when(until, zone)}
        objection = Actions(deps.store).still_needed(snoozed.id, now)  # a stop not taken yet is called off
        if objection == "too_late":  # the box's agent ran its stop command already: said as it is
            return Answered("digest.done.still_needed_too_late", said)
        return Answered("digest.done.still_needed", said)
    if action is Action.STORAGE_DELETED:
        rentals.delete_storage(team, name, now)
        return Answered("digest.done.deleted", {"name": name, "user": who})
    until = now + timedelta(days=deps.policy.idle.storage_keep_days)
    rentals.keep_storage(team, name, until)
    return Answered("digest.done.kept", {"name": name, "user": who, "until": when(until, zone)})
