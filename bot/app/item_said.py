"""What a message says of an item, done: `训练机 关机了` is `power 训练机 off`, `训练机是谁的` its line of the list,
`训练机 先别提醒了` its Still needed, a release or delete asked back with the command to send (bot/app/item_words.py
reads what is said; this does it, for each item where several are named)."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from bot.app import metering, rentals, stop_asked
from bot.app.invocation import CommandError, Invocation
from bot.app.item_due import item_due
from bot.app.item_names import rest_of, several, tracked_names
from bot.app.item_spent import item_idle, item_spent
from bot.app.item_started import began
from bot.app.item_unknown import none_called
from bot.app.item_words import reading
from bot.app.metering import owned_instance
from bot.app.stop_words import after_name
from bot.chat.digest_answers import answer
from bot.chat.ids import Action
from bot.chat.message import plain
from bot.state.rentals import Rentals
from bot.text import t
from bot.text.catalogue import tw
from bot.text.format import literal
from rules.days import day_named


def said_of_item(inv: Invocation, text: str) -> bool:
    """Whether `text` says what happened to one of the team's items, or asks whose it is (and so was answered)."""
    if (joined := several(inv.deps.store, inv.team, text)) is not None:  # 训练机1 和 训练机2 都关机了: each
        names, rest, missing = joined
        # 训练机1 和 训练机9 都关机了: no 训练机9 here, as a name alone is answered; unless what follows the first
        # asks of its stop (训练机 还有多久停: 还有 joined no second name)
        if missing is not None and after_name(rest_of(text, names[0])) is None:
            return none_called(inv, missing, tracked_names(inv.deps.store, inv.team))
        each = [reading(inv.deps.store, inv.team, f"{name} {rest}") for name in names]
        if all(found is not None and found[0] == name for found, name in zip(each, names, strict=True)):
            for name in names:
                said_of_item(inv, f"{name} {rest}")
            return True
    found = reading(inv.deps.store, inv.team, text)
    if found is None:
        return False
    name, what = found
    if what == "whose":  # box1是谁的, 训练机 多少钱: its line of the list, its owner, price and month in it
        rentals.list_items(inv, [name])
    elif what.startswith("spent "):  # 训练机 昨天花了多少: what it cost then
        item_spent(inv, name, what.removeprefix("spent "))
    elif what == "idle" or what.startswith("idle "):  # 训练机 闲置了多久: its idle hours this month (or as said)
        item_idle(inv, name, what.removeprefix("idle").strip() or "本月")
    elif what == "state":  # 训练机 停了吗: how it is, as `power 训练机` says
        metering.power(inv, [name])
    elif what.startswith("set "):  # 训练机 项目改成 cv: `billing 训练机 project=cv`
        metering.billing(inv, [name, what.removeprefix("set ")])
    elif what.startswith("bill "):  # 训练机 包月了, 训练机改成包月 每月2万: `billing 训练机 包月 每月2万`
        metering.billing(inv, [name, *what.removeprefix("bill ").split()])
    elif what.startswith("rename "):  # 训练机 改名为 训练机A: `rename 训练机 训练机A`
        from bot.app.rename import rename

        rename(inv, [name, what.removeprefix("rename ")])
    elif what == "due":  # 训练机什么时候到期: when its billing period ends
        item_due(inv, name)
    elif what.startswith("attach "):  # 数据盘挂到训练机上: the box it is on (-: none)
        rentals.storage_attached(inv, name, what.removeprefix("attach "))
    elif what.startswith("set-kept "):  # 数据盘 负责人改成 @李雷: the storage item's
        rentals.storage_whose(inv, name, what.removeprefix("set-kept "))
    elif what in ("snooze", "snooze-week", "keep"):  # 训练机 先别提醒了: the digest's Still needed (a day, a week)
        action = {"snooze-week": Action.SNOOZE_WEEK, "keep": Action.STORAGE_KEEP}.get(what, Action.STILL_NEEDED)
        _snoozed(inv, name, action)
    elif what.startswith("snooze-until "):  # 训练机 周五之前还要用: Still needed until that day ends
        _snoozed(inv, name, Action.STILL_NEEDED, _until(inv, name, what.removeprefix("snooze-until ")))
    elif what.startswith(("stop-at ", "remind-at ")):  # 训练机 明天早上9点关: a stop (or a reminder) then
        kind, _, when = what.partition(" ")
        stop_asked.asked(inv, owned_instance(inv, name), when, remind=kind == "remind-at")
    elif what == "stop-idle":  # 训练机 跑完就关: a stop once it is idle
        stop_asked.asked(inv, owned_instance(inv, name), None, once_idle=True)
    elif what == "stop-when":  # 训练机 什么时候停: the stop asked for it, or that none is
        stop_asked.when(inv, owned_instance(inv, name))
    elif what == "call-off":  # 训练机 不用关了: the stop asked for, called off
        stop_asked.stop(inv, [name, "cancel"])
    elif what == "stop":  # 关掉训练机: asked back with `stop NAME` to send, as a release is
        inv.answer(plain(t("item.stop_asked", inv.lang, name=name), inv.lang))
    elif what in ("done", "deleted"):
        key = "item.release_asked" if what == "done" else "item.delete_asked"
        inv.answer(plain(t(key, inv.lang, name=name), inv.lang))
    elif what.startswith("began "):  # 训练机 昨天9点开始跑的: on from then, or its start moved back to then
        began(inv, name, what.removeprefix("began "))
    elif what.startswith("started "):  # 训练机 其实是从昨晚8点开始的: its start, corrected
        metering.billing(inv, [name, f"started={what.removeprefix('started ')}"])
    else:  # off, on, or either with the time it happened (`off 昨晚11点`): `power NAME off 昨晚11点`
        state, _, at = what.partition(" ")
        metering.power(inv, [name, state, f"at={at}"] if at else [name, state])
    return True


UNTIL_AT_MOST = timedelta(days=31)  # a day said further off is refused: a box forgotten that long costs its month


def _until(inv: Invocation, name: str, said: str) -> datetime:
    """The end of the day `said` names, in the channel's zone (its next day's midnight); CommandError for a day
    past or further than UNTIL_AT_MOST."""
    zone, now = inv.channel_zone(), inv.deps.now()
    day = day_named(said, now.astimezone(zone).date())
    until = datetime.combine(day + timedelta(days=1), time(0), zone) if day is not None else None
    if until is None or not now < until <= now + UNTIL_AT_MOST:
        raise CommandError(t("item.until_not_read", inv.lang, name=name, day=literal(said), days=UNTIL_AT_MOST.days))
    return until


def _snoozed(inv: Invocation, name: str, action: Action, until: datetime | None = None) -> None:
    """Still needed, said in words: as the digest's button answers it (a stop not taken yet called off; kept
    storage kept), by the item's owner or an admin. `训练机 先别提醒了` turned the whole channel's digest off before."""
    store = Rentals(inv.deps.store)
    found = store.storage_named(inv.team, name) if action is Action.STORAGE_KEEP else store.instance(inv.team, name)
    if found is None:  # gone since it was read: as its button says it
        missing = "error.rental.no_storage" if action is Action.STORAGE_KEEP else "error.rental.no_instance"
        raise CommandError(tw(missing, inv.lang, "chat", name=literal(name)))
    rentals.owner_or_admin(inv, found.owner, name)
    done = answer(inv.deps, store, action, inv.team, name, inv.user, inv.channel_zone(), until=until)
    inv.answer(plain(t(done.key, inv.lang, **done.params), inv.lang))
