"""`/gpu-advise [help | form | prices [gpu] | quote ... | <answers>]`: the slash command and its sub-commands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from bot.chat import answer_commands, inline
from bot.chat.commands import CommandError as ChatCommandError
from bot.deps import Deps
from bot.fields.answers import FIELDS
from bot.slack import conversation
from bot.slack.chat import SlackChat
from bot.slack.ids import SubCommand
from bot.slack.listeners import act, enrollment, rentals, report, tracking
from bot.slack.replies import lang_for
from bot.slack.request import SlackRequest
from bot.slack.ui import blocks
from bot.slack.ui.forms import FormMeta
from bot.text import Lang, t
from bot.text.compare import lines as compare_lines
from bot.text.errors import error_text
from pricing.errors import QuoteError
from pricing.fx import ECB_CURRENCIES
from pricing.quote import QuoteRequest
from rules.errors import ParseError
from rules.parsing import parse_schedule, parse_share

MAX_TEXT = 4000  # longer than any set of answers; the text is not even split beyond it


class CommandError(Exception):
    """A sub-command's input was wrong: the text, already in the user's language."""


def _error(request: SlackRequest, lang: Lang, message: str) -> None:
    """What was wrong, and where the usage is (not the whole usage again)."""
    request.respond(response_type="ephemeral", text=message, blocks=blocks.text(message, t("slack.see_help", lang)))


def on_command(deps: Deps, request: SlackRequest) -> None:
    """Start a profile, or run the sub-command the text names; bad input gets an ephemeral error with the usage."""
    body, client = request.body, request.client
    user, channel = body["user_id"], body["channel_id"]
    lang = lang_for(client, deps, user)
    text = str(body.get("text") or "")
    if len(text) > MAX_TEXT:
        _error(request, lang, t("error.text_too_long", lang, limit=MAX_TEXT))
        return
    try:
        tokens = inline.split(text)
        if not tokens:
            convo = conversation.start(deps, client, team=request.team, channel=channel, user=user, lang=lang)
            if convo.note:  # moved to a DM: say so where the command was typed
                request.respond(response_type="ephemeral", text=t("slack.moved_to_dm", lang))
            return
        _dispatch(deps, request, tokens, lang)
    except inline.InlineError as exc:
        _error(request, lang, t(f"error.inline.{exc.code}", lang, **exc.params))
    except CommandError as exc:
        _error(request, lang, str(exc))


def usage_text(lang: Lang) -> str:
    """`/gpu-advise help`: every inline key from the one table of answer fields."""
    return t(
        "slack.usage",
        lang,
        keys=", ".join(f"`{'`/`'.join(f.keys)}`" for f in FIELDS),
        keys_zh=", ".join(f"`{k}`" for f in FIELDS for k in f.keys_zh),
    )


def _dispatch(deps: Deps, request: SlackRequest, tokens: list[str], lang: Lang) -> None:
    head = tokens[0].lower()
    if head == SubCommand.HELP:
        usage = usage_text(lang)
        request.respond(response_type="ephemeral", text=usage, blocks=blocks.text(usage))
    elif head == SubCommand.ANALYZE:
        _analyze(deps, request, lang)
    elif head == SubCommand.FORM:
        meta = FormMeta(ch=request.body["channel_id"], lang=lang.value).model_dump_json()
        request.client.views_open(trigger_id=request.body["trigger_id"], view=blocks.form({}, meta, lang))
    elif head == SubCommand.PRICES:
        _prices(deps, request, tokens[1:], lang)
    elif head == SubCommand.QUOTE:
        _quote(deps, request, tokens[1:], lang)
    elif head in RENTAL_COMMANDS:
        _rentals(deps, request, head, tokens[1:], lang)
    elif answer_commands.is_inline(tokens):
        _inline(deps, request, tokens, lang)
    else:
        raise CommandError(t("error.unknown_subcommand", lang, name=tokens[0]))


def _analyze(deps: Deps, request: SlackRequest, lang: Lang) -> None:
    """A profile whose thread waits for a capture upload (it answers questions 1 and 2 when it comes)."""
    user = request.body["user_id"]
    convo = conversation.start(
        deps, request.client, team=request.team, channel=request.body["channel_id"], user=user, lang=lang
    )
    request.client.chat_postMessage(
        channel=convo.channel, thread_ts=convo.thread_ts, text=t("slack.analyze_prompt", lang, user=user)
    )
    if convo.note:
        request.respond(response_type="ephemeral", text=t("slack.moved_to_dm", lang))


SubHandler = Callable[[Deps, SlackRequest, list[str], Lang], None]
# The sub-commands about what the team rents (and acts on): each handler takes the words after its name.
RENTAL_COMMANDS: dict[str, SubHandler] = {
    SubCommand.LIST: lambda deps, request, _args, lang: rentals.on_list(deps, request, lang),
    SubCommand.RELEASE: rentals.on_release,
    SubCommand.DELETE_STORAGE: rentals.on_delete_storage,
    SubCommand.BUDGET: rentals.on_budget,
    SubCommand.POWER: rentals.on_power,
    SubCommand.BILLING: rentals.on_billing,
    SubCommand.BALANCE: rentals.on_balance,
    SubCommand.REMIND: rentals.on_remind,
    SubCommand.TRACK: tracking.on_track,
    SubCommand.ENROLL: enrollment.on_enroll,
    SubCommand.ACT: act.on_act,
    SubCommand.REPORT: report.on_report,
}


def _rentals(deps: Deps, request: SlackRequest, head: str, args: list[str], lang: Lang) -> None:
    try:
        RENTAL_COMMANDS[head](deps, request, args, lang)
    except rentals.RentalCommandError as exc:
        raise CommandError(str(exc)) from None


def _inline(deps: Deps, request: SlackRequest, tokens: list[str], lang: Lang) -> None:
    """Every answer in the command text: the recommendation at once (bot/chat/answer_commands.py)."""
    chat = SlackChat(request.client, deps)
    try:
        convo = answer_commands.inline_profile(
            deps,
            chat,
            team=request.team,
            channel=request.body["channel_id"],
            user=request.body["user_id"],
            tokens=tokens,
            lang=lang,
        )
    except ChatCommandError as exc:
        raise CommandError(str(exc)) from None
    if convo.note:
        request.respond(response_type="ephemeral", text=t("slack.moved_to_dm", lang))


def _prices(deps: Deps, request: SlackRequest, args: list[str], lang: Lang) -> None:
    try:
        lines = answer_commands.price_lines(deps, args, lang)
    except ChatCommandError as exc:
        raise CommandError(str(exc)) from None
    request.respond(response_type="ephemeral", text=lines[0], blocks=blocks.text("\n".join(lines)))


def _quote_request(deps: Deps, raw: dict[str, str], lang: Lang) -> QuoteRequest:
    if "schedule" not in raw:
        raise CommandError(t("error.quote_needs_schedule", lang))
    schedule = parse_schedule(raw["schedule"])
    gpu = raw.get("gpu", "A100-80GB")
    currency = raw.get("currency", deps.settings.currency).strip().upper()
    if currency not in ECB_CURRENCIES:
        raise CommandError(
            t("error.quote_currency", lang, currency=currency[:12], accepted=", ".join(sorted(ECB_CURRENCIES)))
        )
    fields: dict[str, Any] = {
        "gpu": gpu,
        "hours_per_day": schedule.hours_per_day,
        "days": schedule.days,
        "currency": currency,
        "region": raw.get("region"),
        "provider": None if raw.get("provider", "").lower() in ("", "cheapest") else raw["provider"],
    }
    if "cards" in raw:
        if not raw["cards"].isdigit():
            raise CommandError(t("error.whole_cards", lang, cards=raw["cards"]))
        fields["cards"] = int(raw["cards"])
    if "share" in raw:
        fields["share"] = parse_share(raw["share"], gpu)
    for key in ("storage_gb", "storage_price", "egress_gb", "egress_price"):
        if key in raw:
            fields[key] = raw[key].removesuffix("GB").removesuffix("gb").strip()
    try:
        return QuoteRequest.model_validate(fields)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'hours'}: {e['msg']}" for e in exc.errors())
        raise CommandError(t("error.bad_quote_request", lang, problems=problems)) from None


YES, NO = ("yes", "y", "true", "1", "是", "要"), ("no", "n", "false", "0", "否", "不")


def _quote(deps: Deps, request: SlackRequest, args: list[str], lang: Lang) -> None:
    raw = inline.parse_pairs(args, inline.QUOTE_KEYS)[0]
    wanted = raw.get("compare", "no").strip().lower()
    if wanted not in YES + NO:
        raise CommandError(t("error.bad_compare", lang, value=wanted[:20]))
    try:
        if wanted in YES:
            asked = _quote_request(deps, raw, lang)
            text = "\n".join(compare_lines(deps.prices.compare(asked), asked, lang))
            request.respond(response_type="in_channel", text=text.split("\n")[0], blocks=blocks.text(text))
            return
        made = deps.prices.quote(_quote_request(deps, raw, lang))
    except (ParseError, QuoteError) as exc:
        raise CommandError(error_text(exc, lang, where="slack")) from None
    request.respond(
        response_type="in_channel",
        text=t(
            "quote.title",
            lang,
            gpu=made.gpu,
            cards=made.cards,
            hours=made.hours_per_day,
            days=made.days,
            gpu_hours=made.gpu_hours,
        ),
        blocks=blocks.quote_message(made, deps.policy, lang),
    )
