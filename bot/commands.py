"""`/gpu-advise [help | form | prices [gpu] | quote ... | <answers>]`: the slash command's sub-commands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from slack_sdk import WebClient

from bot import conversation, inline, slack_views
from bot.deps import Deps
from bot.forms import FormMeta
from bot.ids import SubCommand
from bot.slack_io import lang_for
from bot.texts import age_text, t
from bot.usage import USAGE
from bot.wiring import freshness
from pricing import cache
from pricing.errors import QuoteError
from pricing.offers import as_offers
from pricing.quote import QuoteRequest
from rules.answers import AnswersError, parse_answers
from rules.errors import ParseError, UnknownGPU
from rules.gpus import canonical_gpu
from rules.messages import Lang, parse_error_text
from rules.parsing import parse_duration, parse_schedule, parse_share
from rules.questions import FIVE

Respond = Callable[..., Any]


def _error(respond: Respond, lang: Lang, message: str) -> None:
    respond(response_type="ephemeral", text=message, blocks=slack_views.text(message, USAGE[lang]))


def handle(client: WebClient, deps: Deps, body: dict[str, Any], respond: Respond) -> None:
    user, channel, team = body["user_id"], body["channel_id"], body.get("team_id", "")
    lang = lang_for(client, deps, user)
    try:
        tokens = inline.split(body.get("text") or "")
    except inline.InlineError as exc:
        _error(respond, lang, str(exc))
        return
    if not tokens:
        convo = conversation.start(client, deps, team=team, channel=channel, user=user, lang=lang)
        if convo.note:  # moved to a DM: say so where the command was typed
            respond(response_type="ephemeral", text=t("slack.moved_to_dm", lang))
        return
    head = tokens[0].lower()
    if head == SubCommand.HELP:
        respond(response_type="ephemeral", text=USAGE[lang], blocks=slack_views.text(USAGE[lang]))
    elif head == SubCommand.FORM:
        meta = FormMeta(ch=channel, lang=lang.value).model_dump_json()
        client.views_open(trigger_id=body["trigger_id"], view=slack_views.form({}, meta, lang))
    elif head == SubCommand.PRICES:
        _prices(deps, tokens[1:], respond, lang)
    elif head == SubCommand.QUOTE:
        _quote(deps, tokens[1:], respond, lang)
    elif "=" in tokens[0] or _is_duration(tokens[0]):
        _inline(client, deps, tokens, respond, lang, team=team, channel=channel, user=user)
    else:
        _error(respond, lang, f"unknown sub-command {tokens[0]!r}")


def _is_duration(token: str) -> bool:
    try:
        parse_duration(token)
    except ParseError:
        return False
    return True


def _inline(client: WebClient, deps: Deps, tokens: list[str], respond: Respond, lang: Lang, *, team: str,
            channel: str, user: str) -> None:
    try:
        raw = inline.parse_pairs(tokens, inline.KEYS, positional="duration")
        parse_answers(raw)
    except inline.InlineError as exc:
        _error(respond, lang, str(exc))
        return
    except AnswersError as exc:
        lines = [f"`{key}`: {parse_error_text(e.text, e.problem, e.accepted, lang)}" for key, e in exc.errors.items()]
        _error(respond, lang, "\n".join(lines))
        return
    missing = [a.key for a in FIVE if a.key not in raw]
    if missing:
        names = {"duration": "dur", "memory": "mem", "model_parallel": "mp", "frequency": "freq",
                 "can_resume": "resume"}
        _error(respond, lang, t("slack.missing", lang, keys=", ".join(f"`{names[k]}`" for k in missing)))
        return
    convo = deps.store.create(team=team, channel=channel, user=user, lang=lang.value, answers=raw)
    conversation.finish(client, deps, convo)
    if convo.note:
        respond(response_type="ephemeral", text=t("slack.moved_to_dm", lang))


def _prices(deps: Deps, args: list[str], respond: Respond, lang: Lang) -> None:
    gpu = None
    if args:
        try:
            gpu = canonical_gpu(" ".join(args))
        except UnknownGPU as exc:
            _error(respond, lang, str(exc))
            return
    db = deps.price_db()
    try:
        offers = as_offers(cache.load_prices(db, gpu=gpu), freshness(deps.sources), deps.now())
    finally:
        db.close()
    lines = [t("slack.prices_title", lang, gpu=f" — {gpu}" if gpu else "")]
    for o in offers[:40]:
        r = o.record
        stale = f" *{t('stale', lang)}*" if o.stale else ""
        lines.append(f"• {r.gpu} · {r.instance_type} · {r.sharing} · {r.pricing_model} · "
                     f"{r.amount:g} {r.currency}/{r.unit} · `{r.source}` {o.as_of.date()} "
                     f"({age_text(o.age_days, lang)}){stale}")
    if not offers:
        lines.append(t("slack.no_prices", lang))
    respond(response_type="ephemeral", text=lines[0], blocks=slack_views.text("\n".join(lines)))


def _quote(deps: Deps, args: list[str], respond: Respond, lang: Lang) -> None:
    try:
        raw = inline.parse_pairs(args, inline.QUOTE_KEYS)
        if "schedule" not in raw:
            raise inline.InlineError("give the schedule: hours=4x14 (hours a day x days)")
        schedule = parse_schedule(raw["schedule"])
        gpu = raw.get("gpu", "A100-80GB")
        fields: dict[str, Any] = {"gpu": gpu, "hours_per_day": schedule.hours_per_day, "days": schedule.days,
                                  "currency": raw.get("currency", deps.settings.currency).upper(),
                                  "region": raw.get("region")}
        if "cards" in raw:
            if not raw["cards"].isdigit():
                raise inline.InlineError(f"cards={raw['cards']!r}: a whole number of cards; use share=1/2 for a slice")
            fields["cards"] = int(raw["cards"])
        if "share" in raw:
            fields["share"] = parse_share(raw["share"], gpu)
        try:
            request = QuoteRequest.model_validate(fields)
        except ValidationError as exc:
            raise inline.InlineError("; ".join(f"{'.'.join(map(str, e['loc'])) or 'hours'}: {e['msg']}"
                                               for e in exc.errors())) from None
        quote = deps.quote(request)
    except (inline.InlineError, ParseError, QuoteError) as exc:
        _error(respond, lang, str(exc))
        return
    respond(response_type="in_channel", text=t("quote.title", lang, gpu=quote.gpu, cards=quote.cards,
                                                hours=quote.hours_per_day, days=quote.days, gpu_hours=quote.gpu_hours),
            blocks=slack_views.quote_message(quote, deps.policy, lang))
