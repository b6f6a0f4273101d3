"""`rename OLD NEW` (`改名`, `重命名`), or said in words (`rename box1 to trainer`, `训练机 改名为 训练机A`,
`把训练机改名为训练机A`): a running instance's or kept storage's name, changed by its owner or an admin. There was no
way to: a box found in the cloud kept its cloud id (i-0abc…, ins-…) as its name in every digest, list and report.
A scan never renames it back (discovery keys it by its cloud id); its spend, power and agent token are its own still."""

from __future__ import annotations

from bot.app.invocation import CommandError, Invocation
from bot.app.rentals import owner_or_admin
from bot.chat.message import plain
from bot.state.rentals import RentalError, Rentals
from bot.text import t
from bot.text.catalogue import tw
from bot.text.format import literal


def rename(inv: Invocation, args: list[str]) -> None:
    lang = inv.lang
    words = [w for w in args if w.lower() not in ("to", "为", "成")]  # rename box1 to trainer: the two names
    if len(words) != 2:
        raise CommandError(t("rename.usage", lang))
    old, new = words
    rentals = Rentals(inv.deps.store)
    if (found := rentals.named(inv.team, old)) is not None:  # none: refused below, saying why
        owner_or_admin(inv, found.owner, old)
    try:
        rentals.rename(inv.team, old, new)
    except RentalError as exc:
        raise CommandError(tw(f"error.rental.{exc.code}", lang, "chat", **exc.params)) from None
    inv.answer(plain(t("rename.done", lang, old=literal(old), new=literal(new)), lang))
