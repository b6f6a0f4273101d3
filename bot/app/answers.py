"""Sub-commands that answer with advice or prices, the same on every chat: the inline answers (`10h mem=70/80
mp=no freq=daily resume=no`: the recommendation at once) and `prices [gpu]`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.app.gpu_compare import compare_lines, several_gpus
from bot.app.invocation import CommandError, Invocation
from bot.chat import conversation, inline
from bot.chat.port import Chat
from bot.deps import Deps
from bot.fields.answers import inline_key
from bot.fields.metering import PROVIDER_NAMES, provider_id
from bot.state import Conversation
from bot.text import Lang, t
from bot.text.catalogue import tw
from bot.text.cheapest import cheapest_by_card, cheapest_lines
from bot.text.chinese_names import CHEAPEST_WORDS, currency_code
from bot.text.errors import error_text
from bot.text.format import literal
from bot.text.quote import offer_cells, source_line
from rules.answers import AnswersError, dump_answers, parse_answers
from rules.errors import UnknownGPU
from rules.gpus import canonical_gpu
from rules.patterns import lazy
from rules.questions import missing


def inline_profile(
    deps: Deps,
    chat: Chat,
    *,
    team: str,
    channel: str,
    user: str,
    tokens: list[str],
    lang: Lang,
    thread: str | None = None,
) -> Conversation:
    """Every answer in the command text: the recommendation at once, through `chat` (in the thread under the
    person's message, where the chat has one: `thread`). CommandError (what was wrong with which answer) when
    one is unreadable. With a required one missing (`10h mem=70/80`), a profile that keeps those given and asks
    the rest: it said which were missing, and they were all typed again."""
    raw, typed = inline.answers_of(tokens)
    try:
        values = parse_answers(raw)
    except AnswersError as exc:
        raise CommandError(
            "\n".join(
                f"`{literal(typed.get(key, inline_key(key)))}`: {error_text(error, lang, where='slack')}"
                for key, error in exc.errors.items()
            )
        ) from None
    named = {key: typed.get(key, inline_key(key)) for key in raw}  # as typed: `10h` first has no key
    said = {key: text if named[key] == text else f"{named[key]}={text}" for key, text in raw.items() if text}
    where = _Where(team, channel, user, lang, thread)
    return profile_of(deps, chat, where, raw, values, said)


@dataclass(frozen=True)
class _Where:
    team: str
    channel: str
    user: str
    lang: Lang
    thread: str | None


def sentence_profile(inv: Invocation, raw: dict[str, str]) -> Conversation:
    """A job described in a sentence, its answers a clause each (rules/clauses.py): the profile with those kept and
    the rest asked, or the recommendation at once when they are all there. A clause the questions read alone but
    not beside the others (parse_answers) is left to be asked."""
    while True:
        try:
            values = parse_answers(raw)
            break
        except AnswersError as exc:
            raw = {key: text for key, text in raw.items() if key not in exc.errors}
    where = _Where(inv.team, inv.channel, inv.user, inv.lang, inv.reply_to)
    return profile_of(inv.deps, inv.chat, where, raw, values, raw)


def profile_of(
    deps: Deps, chat: Chat, where: _Where, raw: Mapping[str, str], values: dict[str, Any], said: Mapping[str, str]
) -> Conversation:
    """The answers given at once (`raw`, parsed as `values`; `said`: each as the person typed it): the
    recommendation when none is missing, else a profile that keeps them and asks the rest."""
    if missing(values):
        given = {key: text for key, text in raw.items() if text.strip()}
        texts = list(dict.fromkeys(said[key] for key in given if key in said))
        shown = ", ".join(
            literal(text) for text in texts if not any(text in other and text != other for other in texts)
        )
        return conversation.start(
            deps,
            chat,
            team=where.team,
            channel=where.channel,
            user=where.user,
            lang=where.lang,
            answers=given,
            values=dump_answers(values),
            note=t("slack.root_kept", where.lang, answers=shown),
        )
    convo = deps.conversations.create(
        team=where.team,
        channel=where.channel,
        user=where.user,
        lang=where.lang.value,
        answers=dict(raw),
        values=dump_answers(values),
    )
    if where.thread:
        convo.thread_ts = where.thread
    conversation.finish(deps, chat, convo)
    return convo


SHOWN = 40  # offers a chat message lists; the rest are counted, with how to narrow them


# what the prices' sources say, asked after the word (`prices status`, `价格 多久更新一次`, `价格 汇率`)
_STATUS = lazy(
    r"(?:status|sources?|状态|来源|(?:多久|什么时候|啥时候|何时)?(?:更新|刷新)(?:一次|了吗|过吗|了没有?)?|refresh(?:ed)?"
    r"|(?:up to date|updated)|(?:美元|usd)?汇率(?:是多少)?|fx|exchange rates?)[?？]?",
    re.IGNORECASE,
)


def status_lines(deps: Deps, lang: Lang) -> list[str]:
    """`prices status` in a chat: each source as App Home says it, the exchange rate a quote in the team's currency
    takes, and who refreshes them (the schedule; an operator at once, in the terminal)."""
    lines = [t("slack.home_sources", lang), *(source_line(s, lang) for s in deps.prices.status())]
    home = currency_code(deps.settings.files.currency)
    fx = deps.prices.money(home).fx
    if fx is not None:
        lines.append(
            t("fx", lang, base=fx.base, quote=fx.quote, rate=fx.rate, source=fx.source, date=fx.rate_date.isoformat())
        )
    lines.append(t("prices.status_refresh", lang))
    return lines


def price_lines(deps: Deps, args: list[str], lang: Lang) -> list[str]:
    """`prices [GPU] [PROVIDER]` (or provider=P): a title, then each cached offer with its source and age (stale ones
    said); past SHOWN of them, how many more and how to narrow them. `prices status`: the sources (status_lines)."""
    if args and _STATUS.fullmatch(" ".join(args)):  # `价格 多久更新一次` was an unknown GPU named 多久更新一次
        return status_lines(deps, lang)
    cheapest = any(w.lower() in CHEAPEST_WORDS for w in args)  # 最便宜的A100: the cheapest named first
    args = [w for w in args if w.lower() not in CHEAPEST_WORDS]
    words = [w for w in args if w.partition("=")[0].lower() not in PROVIDER_KEYS]
    keyed = [w.partition("=")[2] for w in args if w.partition("=")[0].lower() in PROVIDER_KEYS]
    if not keyed and (several := several_gpus(words)) is not None:  # `价格 A100 H100`: side by side
        return compare_lines(deps, several, lang)
    to_team = deps.prices.money(currency_code(deps.settings.files.currency)) if cheapest else None
    if to_team is not None and not words and not keyed:  # 最便宜的卡, prices cheapest: each card's cheapest first
        return cheapest_by_card(deps.prices.offers(), to_team, lang) or [t("slack.no_prices", lang)]
    gpu, provider = _gpu_and_provider(deps, words, keyed[0] if keyed else None, lang)
    offers = [o for o in deps.prices.offers(gpu=gpu) if provider is None or o.record.provider.lower() == provider]
    title = " · ".join(n for n in (gpu, provider) if n)
    lines = [t("slack.prices_title", lang, gpu=f" — {title}" if title else "")]
    if to_team is not None and gpu is not None:
        lines += cheapest_lines(offers, to_team, lang)
    for o in offers[:SHOWN]:
        gpu_name, sold, sharing, model, price, _per_gpu_hour, _region, source, day, age = offer_cells(o, lang)
        stale = f" *{t('stale', lang)}*" if o.stale else ""
        where = f"{o.record.provider} · " if provider is None else ""  # whose price: `最便宜的4090在哪` asks it
        lines.append(f"• {gpu_name} · {sold} · {sharing} · {model} · {price} · {where}`{source}` {day} ({age}){stale}")
    if len(offers) > SHOWN:
        lines.append(t("slack.prices_more", lang, more=len(offers) - SHOWN))
    if not offers and gpu is not None and provider is None:  # `价格 H800`: the GPUs that have one, as quote says
        priced = ", ".join(deps.prices.priced_gpus()) or "-"
        said = tw("error.quote.no_price", lang, "chat", gpu=gpu, priced=priced)
        lines.append(said[:1].upper() + said[1:])  # a line of its own: "No price for H800-80GB yet …"
    elif not offers and gpu is not None and provider is not None:  # `价格 4090 autodl`: what autodl has instead
        theirs = sorted({o.record.gpu for o in deps.prices.offers() if o.record.provider.lower() == provider})
        lines.append(t("prices.provider_lacks", lang, provider=provider, gpu=gpu, gpus=", ".join(theirs) or "-"))
    elif not offers:
        lines.append(t("slack.no_prices", lang))
    return lines


PROVIDER_KEYS = ("provider", "供应商", "平台")


def _gpu_and_provider(deps: Deps, words: list[str], keyed: str | None, lang: Lang) -> tuple[str | None, str | None]:
    """The GPU and the provider `prices`' words name: a provider by its key, by its name (`autodl`, `阿里云`), or as a
    provider of the cache after the GPU (`价格 A100 lambda`). The cache's providers are read only where a provider
    is asked for, or a word is no GPU: not on every `prices A100`."""
    words, provider, known = list(words), keyed, None
    if provider is None and words and words[-1].lower() in PROVIDER_NAMES:  # `价格 4090 autodl`, `价格 4090 阿里云`
        provider = words.pop()
    try:
        gpu = canonical_gpu(" ".join(words)) if words else None
    except UnknownGPU as exc:
        known = _providers(deps)
        if provider is not None or words[-1].lower() not in known:
            raise CommandError(error_text(exc, lang, where="chat")) from None
        provider = words.pop()
        return _gpu_and_provider(deps, words, provider, lang)
    if provider is None:
        return gpu, None
    provider, known = provider_id(provider), known or _providers(deps)
    if provider not in known:
        raise CommandError(t("error.prices_provider", lang, provider=provider[:40], known=", ".join(sorted(known))))
    return gpu, provider


def _providers(deps: Deps) -> set[str]:
    return {o.record.provider.lower() for o in deps.prices.offers()}
