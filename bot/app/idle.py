"""`idle` (`闲置`, and asked as people ask it: `谁的机器闲着`, `what's idle`): this channel's digest as it stands now,
on demand (its idle instances, the storage left behind, this month's spend), with the digest's buttons, for
everyone there. It gives no warning and promises no stop time no warning stands behind (the daily digest warns),
and it is not the day's digest: that is still sent at its time."""

from __future__ import annotations

import re

from bot.app.act import asked
from bot.app.digest_card import digest_now
from bot.app.free_words import idle_asked
from bot.app.invocation import CommandError, Invocation
from bot.app.rentals import EVERY, MINE
from bot.app.switches_said import policy_asked
from bot.chat.digest_messages import digest_message, instance_line, lifecycle_line, storage_line
from bot.chat.message import plain
from bot.digest.now import digests_now, has_news
from bot.state.rentals import Rentals
from bot.text import t
from bot.text.format import literal
from rules.patterns import lazy

# a time a box must be idle before it is news, asked for (闲置超过3小时提醒我, 闲置2小时就通知, idle for 3h): the
# rule is the team's policy, not the channel's words
_THRESHOLD = lazy(
    r"(?:超过|满|了|达到)?\s*(?:\d+(?:\.\d+)?|[一二两三四五六七八九十半]+)\s*(?:个)?(?:小时|钟头|分钟|h|hours?|min(?:ute)?s?)",
    re.IGNORECASE,
)


# the rule asked after `idle`'s word (闲置多久算闲置, 闲置的标准是什么, 闲置怎么算, idle means what?)
_RULE_AFTER = lazy(
    r"(?:的)?(?:多久|多长时间|多少分钟|怎么|怎样|如何)(?:才|就)?(?:算|判断|判定|计算)(?:是)?(?:闲置)?(?:呢|啊|吗)?[?？]?"
    r"|(?:的)?(?:标准|规则|定义|判定|阈值)(?:是什么|是啥|是多少)?[?？]?"
    r"|(?:rule|threshold|definition|means what|meaning)\??",
    re.IGNORECASE,
)


def idle(inv: Invocation, args: list[str]) -> None:
    deps, lang = inv.deps, inv.lang
    mine = [word for word in args if word.lower() in MINE]
    every = [word for word in args if word.lower() in EVERY]
    args = [word for word in args if word.lower() not in MINE | EVERY]
    said = " ".join(args).lower()  # 什么算闲置, what's the idle rule (bot/app/free_words.py); 闲置多久算闲置
    if args and policy_asked("闲置" + "".join(args)):  # 闲置的机器会怎么处理: what this chat does about them
        asked(inv)
        return
    rule_asked = said in ("rule", "规则") or _RULE_AFTER.fullmatch(said) is not None
    if args and (rule_asked or _THRESHOLD.search(" ".join(args))):  # 闲置超过3小时提醒我: the rule, and who sets it
        rule = deps.policy.idle
        said = t("idle.rule", lang, minutes=f"{rule.window_minutes:g}", pct=f"{rule.utilisation_max_pct:g}")
        inv.answer(plain(said, lang))
        return
    if args and not (idle_asked("闲置" + "".join(args)) or idle_asked("idle " + " ".join(args))):  # 闲置的机器有哪些
        raise CommandError(t("idle.words", lang, words=literal(" ".join(args)[:40])))
    rentals = Rentals(deps.store)
    if every:  # `idle all`: the whole team's, wherever each was tracked
        inv.answer(plain(across(inv, rentals, None), lang))
        return
    if mine or inv.direct:  # a direct chat, or `idle mine`: the asker's own, wherever each was tracked
        inv.answer(plain(across(inv, rentals, inv.user), lang))
        return
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


def across(inv: Invocation, rentals: Rentals, owner: str | None) -> str:
    """`owner`'s idle instances and storage left behind in every chat of the team (None: everyone's), as the digests
    say them now, without buttons (each item's are in its chat's digest, where a press updates that chat's card)."""
    lang, zone, whose = inv.lang, inv.channel_zone(), "yours" if owner else "team"
    owned = [i for i in rentals.instances(inv.team, active_only=True) if owner in (None, i.owner)]
    kept = [s for s in rentals.storage(inv.team, kept_only=True) if owner in (None, s.owner)]
    if not (owned or kept):
        return t(f"idle.{whose}_nothing", lang)
    policy = inv.deps.policy
    channels = sorted({i.channel for i in owned} | {s.channel for s in kept})
    made = digests_now(
        rentals, inv.team, channels, inv.deps.now(), policy.idle, policy.metering, zone, inv.deps.prices.worth()
    )
    lines = [
        *(instance_line(n, lang, zone) for d in made.values() for n in d.instances if owner in (None, n.owner)),
        *(lifecycle_line(n, lang, zone) for d in made.values() for n in d.lifecycle if owner in (None, n.owner)),
        *(storage_line(n, lang) for d in made.values() for n in d.storage if owner in (None, n.owner)),
    ]
    if not lines:
        rules = policy.idle
        pct, minutes = f"{rules.utilisation_max_pct:g}", f"{rules.window_minutes:g}"
        return t(f"idle.{whose}_none", lang, count=len(owned) + len(kept), pct=pct, minutes=minutes)
    head = t(f"idle.{whose}", lang, count=len(lines))
    return "\n".join([head, *(f"• {line}" for line in lines), t("idle.yours_after", lang)])
