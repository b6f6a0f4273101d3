"""`idle` (`闲置`, and asked as people ask it: `谁的机器闲着`, `what's idle`): this channel's digest as it stands now,
on demand (its idle instances, the storage left behind, this month's spend), with the digest's buttons, for
everyone there. It gives no warning and promises no stop time no warning stands behind (the daily digest warns),
and it is not the day's digest: that is still sent at its time."""

from __future__ import annotations

from bot.app.digest_card import digest_now
from bot.app.free_words import idle_asked
from bot.app.invocation import CommandError, Invocation
from bot.chat.digest_messages import digest_message
from bot.chat.message import plain
from bot.digest.now import has_news
from bot.state.rentals import Rentals
from bot.text import t
from bot.text.format import literal


def idle(inv: Invocation, args: list[str]) -> None:
    deps, lang = inv.deps, inv.lang
    if args and not (idle_asked("闲置" + "".join(args)) or idle_asked("idle " + " ".join(args))):  # 闲置的机器有哪些
        raise CommandError(t("idle.words", lang, words=literal(" ".join(args)[:40])))
    rentals = Rentals(deps.store)
    where = inv.channel_name or t("idle.this_chat", lang)
    tracked = [i for i in rentals.instances(inv.team, active_only=True) if i.channel == inv.channel]
    kept = [s for s in rentals.storage(inv.team, kept_only=True) if s.channel == inv.channel]
    if inv.direct or not (tracked or kept):  # items are told in the chat each was tracked in
        raise CommandError(t("idle.nothing_tracked", lang, channel=where))
    digest = digest_now(deps, rentals, inv.team, inv.channel, inv.channel_zone())
    if not has_news(digest):
        rules = deps.policy.idle
        said = t(
            "idle.none", lang, channel=where, minutes=f"{rules.window_minutes:g}", pct=f"{rules.utilisation_max_pct:g}"
        )
        inv.answer(plain(said, lang))
        return
    inv.post(digest_message(digest, lang, inv.channel_zone()))  # a message of its own: its buttons update it
