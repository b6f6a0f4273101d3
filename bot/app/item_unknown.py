"""A message that asks after an item, or says what happened to it, by a name nothing here is tracked under
(`disk9 还在吗`, `训练机2 关机了`, `gpu-box is off`): it was refused as an unknown sub-command named disk9, as if
the person had mistyped a command. It is told that no instance or kept storage goes by that name, with the tracked
name it most likely meant (a misspelt name is the usual cause) and `list`; a box released (or a disk deleted) asked
after is answered with its line of the list, which says so. Read only when nothing else reads the message, so it
changes which answer a question gets, never what a message does to an item."""

from __future__ import annotations

import difflib

from bot.app.invocation import CommandError, Invocation
from bot.app.item_names import starts_with_name, tracked_names
from bot.app.item_words import ASKED_OR_SAID, named_inside
from bot.text import t
from bot.text.format import literal
from rules.patterns import has_han

_NOT_IN_A_NAME = frozenset(",，。.!！?？:：;；、")  # `训练机闲着呢，帮我关掉`: a clause, not a name
_LONGEST_NAME = 40  # a name is a short label (track refuses longer ones); a longer start is a sentence
# English words that are sub-commands' arguments as often as an item's news (`digest off`, `act on`): alone after an
# unknown word they say nothing of an item
_AMBIGUOUS = frozenset({"on", "off", "status", "done", "gone", "deleted", "started", "stopped", "owner"})


def unknown_name(text: str, known: list[str] | None = None) -> str | None:
    """The name a message asks after or gives news of, when it is none of the team's items' (the caller has found no
    item by it); None when the rest is no question or news of an item. A word of `_AMBIGUOUS` after it counts only
    where the name is like one of `known` (`box12 off` beside a tracked box1)."""
    said = text.strip()
    if (inside := named_inside(said)) is not None:  # is disk9 still there?, who owns box9
        return inside
    for cut in range(1, min(len(said), _LONGEST_NAME + 1)):
        name, rest = said[:cut].strip(), said[cut:].strip()
        if not name or not rest or any(c.isspace() or c in _NOT_IN_A_NAME for c in name):
            continue
        if not has_han(rest) and rest.lower().rstrip("?") in _AMBIGUOUS and _near(name, known or []) is None:
            continue
        if any(pattern.fullmatch(rest) for pattern in ASKED_OR_SAID):
            return name
        if " " in said and cut > said.index(" "):  # past the first word: the name is that word, or none
            return None
    return None


def _gone(inv: Invocation, name: str) -> bool:
    """Whether `name` is an instance released, or storage deleted, here (not a name nothing ever had)."""
    from bot.state.rentals import Rentals

    rentals, named = Rentals(inv.deps.store), name.lower()
    gone = [i.name for i in rentals.instances(inv.team) if i.released_at is not None]
    gone += [s.name for s in rentals.storage(inv.team) if s.deleted_at is not None]
    return any(n.lower() == named for n in gone)


def refuse_unknown(inv: Invocation, text: str) -> bool:
    """Raise the error that says no item here is called what `text` names, if it asks after or tells of one (one
    released or deleted is answered with its line of the list, which says so: True); False otherwise."""
    names = tracked_names(inv.deps.store, inv.team)
    name = unknown_name(text, names)
    if name is None:
        return False
    if not _gone(inv, name) and any(starts_with_name(name, n) for n in names):  # `训练机闲着呢 …`: words glued on
        return False
    return none_called(inv, name, names)


def none_called(inv: Invocation, name: str, names: list[str]) -> bool:
    """Answer a name no running instance or kept storage goes by: one released (or deleted) with its line of the
    list, which says so (True); else the error saying there is none, with the tracked name of `names` most like it."""
    if _gone(inv, name):  # who is using box2, released an hour ago: its line, which says it was released
        from bot.app.rentals import list_items

        list_items(inv, [name])
        return True
    meant = _near(name, names)
    said = t("item.unknown_name", inv.lang, name=literal(name))
    raise CommandError(said + (t("item.unknown_name_near", inv.lang, name=meant) if meant else ""))


def _near(name: str, names: list[str]) -> str | None:
    """The tracked name most like `name` (a misspelling: 训练鸡 for 训练机, box12 for box1); None when none is."""
    near = difflib.get_close_matches(name.lower(), [n.lower() for n in names], n=1, cutoff=0.6)
    return next((n for n in names if near and n.lower() == near[0]), None)
