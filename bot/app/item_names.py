"""Which of the team's items a message names first: a tracked name at its start, where it ends there (训练机2 is not
训练机, 训练机3点 is 训练机 at 3), and several joined (训练机1 和 训练机2 都关机了). Read by bot/app/item_words.py,
bot/app/item_said.py and bot/app/item_unknown.py."""

from __future__ import annotations

import re
from typing import NamedTuple

from bot.app.item_settings import after as _after
from bot.state.rentals import Rentals
from bot.state.store import Store
from rules.patterns import lazy


def named_first(store: Store, team: str, text: str) -> str | None:
    """The running instance `text` begins with, if any (the longest name that fits)."""
    return first_named(text, [i.name for i in Rentals(store).instances(team, active_only=True)])


def kept_names(store: Store, team: str) -> list[str]:
    """The names of the team's kept storage."""
    return [s.name for s in Rentals(store).storage(team, kept_only=True)]


def tracked_names(store: Store, team: str) -> list[str]:
    """The names of the team's running instances and kept storage."""
    rentals = Rentals(store)
    return [i.name for i in rentals.instances(team, active_only=True)] + [
        s.name for s in rentals.storage(team, kept_only=True)
    ]


# a name's characters going on past a tracked name make another name (训练机2 beside 训练机, box12 beside box1), unless
# what follows a name ending in Chinese is a time said glued to it (训练机3点关机了, 训练机9:30关的)
_GOES_ON = lazy(r"[A-Za-z0-9_-]")
_TIME_GLUED = lazy(r"\d{1,2}(?:[:：]\d|\s*(?:点|時|时|号|號|日|月|个?小时|分钟?|天|周|个月|[ap]\.?m\b|h\b))", re.I)


def starts_with_name(text: str, name: str) -> bool:
    """Whether `text` begins with the item name `name` (any case), not with a longer name that begins the same."""
    if not text.lower().startswith(name.lower()):
        return False
    after = text[len(name) :]
    if not after or _GOES_ON.match(after) is None:
        return True
    return not (name[-1].isascii() and name[-1].isalnum()) and _TIME_GLUED.match(after) is not None


def first_named(text: str, names: list[str]) -> str | None:
    """The name of `names` that `text` begins with (the longest that fits); None where none does."""
    said = text.strip()
    return next((n for n in sorted(names, key=len, reverse=True) if starts_with_name(said, n)), None)


def rest_of(text: str, name: str) -> str:
    """What `text` says after `name`, in small letters."""
    return _after(text, name).lower()


# several items named in one message (训练机1 和 训练机2 都关机了, 训练机1、训练机2 停了, box1 and box2 are both off)
_JOINED = lazy(r"\s*(?:和|跟|与|、|以及|还有|[,，&]|\band\b)\s*", re.I)
_BOTH = lazy(r"\s*(?:也都|全都|都|\bboth\b|\ball\b)\s*", re.I)
_NEXT = lazy(r"[^\s,，、]+?(?=\s|都|也|全|$)")


class Joined(NamedTuple):
    names: list[str]  # the tracked names, in the order said
    rest: str  # what is said of them all
    missing: str | None = None  # a name joined to them that is none here (训练机9 of 训练机1 和 训练机9 都关机了)


def several(store: Store, team: str, text: str) -> Joined | None:
    """The tracked names `text` begins with, joined (two or more), and what is said of them all, or the name joined
    to one that is none here; None for fewer and none missing."""
    if _JOINED.search(text) is None:  # most messages: no joining word, no read of the team's names
        return None
    names, said, found = tracked_names(store, team), text.strip(), []
    while (name := first_named(said, names)) is not None:
        found.append(name)
        said = said[len(name) :]
        if (joined := _JOINED.match(said)) is None:
            break
        said, comma = said[joined.end() :], joined.group(0).strip() in ",，"
        if comma and first_named(said, names) is None:  # 数据盘，不用了: a clause after it, not another name
            break
        if first_named(said, names) is None and (nothing := _NEXT.match(said)) is not None:
            from bot.app.item_unknown import unknown_name

            missing = min(filter(None, (unknown_name(said), nothing.group(0))), key=len)  # 训练机9 of 训练机9都关机了
            return Joined(found, said, missing)
    if len(found) < 2:
        return None
    rest = _BOTH.sub(" ", said).strip()
    return Joined(found, re.sub(r"^are\b", "is", rest, flags=re.I))  # box1 and box2 are off: as box1 is off
