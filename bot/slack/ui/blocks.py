"""What each Slack message and view says: the context of each template, from the same Advice the terminal prints."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from bot.advice import Advice
from bot.fields.answers import FORM_FIELDS
from bot.slack.ids import Action, Callback
from bot.slack.ui import templating
from bot.text import Lang, t
from bot.text.catalogue import has
from bot.text.errors import error_text
from bot.text.format import forms, show
from bot.text.quote import age_text, notes, rows, stale_text, title
from bot.text.reasons import headline, render
from pricing.errors import QuoteError
from pricing.quote import Quote
from pricing.status import SourceState
from rules.policy import Policy
from rules.questions import INFERENCE_KEYS, Ask, Step


class ButtonValue(BaseModel):
    """What a button carries: the conversation, the question, and the answer (None: skip)."""

    model_config = ConfigDict(frozen=True)

    c: str
    k: str = ""
    v: str | None = None


def root(user: str, lang: Lang, note: str | None = None) -> list[dict[str, Any]]:
    return templating.message("root.json.j2", text=t("slack.root", lang, user=user), note=note)


def _title(step: Step, lang: Lang) -> str:
    text = t(f"question.{step.ask.key}", lang)
    if step.required:
        return t("slack.question", lang, n=step.number, total=step.total, text=text)
    return t("slack.follow_up", lang, text=text)


def _label(ask: Ask, value: str, lang: Lang) -> str:
    return t(f"answer.{ask.key}.{value}", lang)


def question(convo_id: str, step: Step, lang: Lang) -> list[dict[str, Any]]:
    ask = step.ask
    buttons = [
        {
            "action_id": f"{Action.ANSWER}:{i}",
            "label": _label(ask, value, lang),
            "primary": False,
            "value": ButtonValue(c=convo_id, k=ask.key, v=value).model_dump_json(),
        }
        for i, value in enumerate(ask.options)
    ]
    if has(f"question.{ask.key}.hint"):
        buttons.append(
            {
                "action_id": Action.FROM_MODEL.value,
                "label": t("slack.from_model", lang),
                "primary": False,
                "value": ButtonValue(c=convo_id, k=ask.key, v=None).model_dump_json(),
            }
        )
    if not step.required:
        buttons.append(
            {
                "action_id": Action.SKIP.value,
                "label": t("slack.skip", lang),
                "primary": False,
                "value": ButtonValue(c=convo_id, k=ask.key, v=None).model_dump_json(),
            }
        )
    examples = ", ".join(f"`{templating.escape(a)}`" for a in forms(ask.accepted(), lang)[:5])
    hint = t("slack.type_hint", lang, examples=examples)
    return templating.message("question.json.j2", title=_title(step, lang), buttons=buttons, hint=hint)


def answered(step: Step, answer: str | None, user: str, lang: Lang) -> list[dict[str, Any]]:
    ask = step.ask
    label = _label(ask, answer, lang) if answer and answer in ask.options else answer
    if answer:
        text = t("slack.answered", lang, answer=templating.escape(label), user=user)
    else:
        text = t("slack.skipped", lang, user=user)
    return templating.message("answered.json.j2", title=_title(step, lang), answer=text)


def costs(
    quote: Quote | None,
    error: QuoteError | None,
    policy: Policy,
    lang: Lang,
    assumed: bool = False,
    *,
    serving_given: bool = False,
) -> dict[str, Any]:
    if quote is None:
        reason = error_text(error, lang, where="slack") if error is not None else "?"
        return {
            "title": t("slack.costs", lang) + "\n" + t("slack.no_quote", lang, reason=reason),
            "rows": [],
            "notes": "",
        }
    heading = f"{t('slack.costs', lang)}  {title(quote, lang)}"
    if assumed:
        # a hint is not repeated once answered: with serving= given, the service's hours are the answer
        key = (
            ("slack.assumed_service_given" if serving_given else "slack.assumed_service")
            if quote.service
            else "slack.assumed_schedule"
        )
        heading += "\n_" + t(key, lang, hours=quote.hours_per_day, days=quote.days) + "_"
    lines = [f"*{row.option}*  {row.cost}\n{row.billing}\n_{row.source}_" for row in rows(quote, policy, lang)]
    return {"title": heading, "rows": lines, "notes": "\n".join(notes(quote, lang))}


def _why(advice: Advice, lang: Lang) -> str:
    decision = advice.decision
    why = [t("slack.why", lang)]
    why += [("✅ " if check.fired else "▫️ ") + render(check, lang, "slack") for check in decision.checks]
    why += [f"→ {render(reason, lang, 'slack')}" for reason in decision.verdict]
    why += [f"⚠️ {render(warning, lang, 'slack')}" for warning in decision.warnings]
    if decision.missing:
        why.append(f"_{t('missing', lang)}: {', '.join(q.value for q in decision.missing)}_")
    return "\n".join(why)


def recommendation(advice: Advice, convo_id: str, policy: Policy, lang: Lang) -> list[dict[str, Any]]:
    groups: dict[str, list[str]] = {}
    for item in advice.decision.guidance:
        groups.setdefault(item.topic.value, []).append(f"• {render(item, lang, 'slack')}")
    sections = [f"*{t('topic.' + topic, lang)}*\n" + "\n".join(lines) for topic, lines in groups.items()]
    choice = headline(advice.decision, lang)
    return templating.message(
        "recommendation.json.j2",
        header=f"{t('recommendation', lang)}: {choice}",
        why=_why(advice, lang),
        advice=sections,
        costs=costs(
            advice.quote,
            advice.quote_error,
            policy,
            lang,
            advice.schedule_assumed,
            serving_given=advice.profile.serving_hours is not None,
        ),
        change_action=Action.CHANGE.value,
        change_label=t("slack.change", lang),
        restart_action=Action.RESTART.value,
        restart_label=t("slack.restart", lang),
        rented_action=Action.RENTED.value,
        rented_label=t("digest.button.rented", lang),
        value=ButtonValue(c=convo_id).model_dump_json(),
    )


def quote_message(quote: Quote, policy: Policy, lang: Lang) -> list[dict[str, Any]]:
    return templating.message("quote.json.j2", costs=costs(quote, None, policy, lang))


def context(*lines: str) -> list[dict[str, Any]]:
    """Small grey lines (context blocks): a note under a message, an answer in place of an item."""
    return templating.message("context.json.j2", lines=lines)


def text(*parts: str) -> list[dict[str, Any]]:
    return templating.message("text.json.j2", parts=[p for p in parts if p])


def form(answers: dict[str, str], metadata: str, lang: Lang) -> dict[str, Any]:
    fields = []
    for field in FORM_FIELDS:
        ask = field.ask
        hint = ", ".join(forms(ask.accepted(), lang)[:6])
        if ask.required or ask.key in INFERENCE_KEYS:  # which ones depends on the workload: checked on submit
            hint = t("slack.form_required_for", lang, work=t(f"slack.form_for.{ask.stage.value}", lang)) + hint
        fields.append(
            {
                "key": ask.key,
                "label": t(f"question.{ask.key}", lang),
                "required": False,
                "hint": hint,
                "placeholder": forms(ask.accepted(), lang)[0],
                "initial": answers.get(ask.key, ""),
            }
        )
    return templating.view(
        "form.json.j2",
        callback_id=Callback.PROFILE_FORM.value,
        metadata=metadata,
        title=t("slack.form_title", lang),
        submit=t("slack.form_submit", lang),
        cancel=t("slack.form_cancel", lang),
        fields=fields,
    )


def slack_time(moment: datetime) -> str:
    """A time Slack shows in each reader's own zone (its <!date> token), with a UTC fallback."""
    return f"<!date^{int(moment.timestamp())}^{{date_num}} {{time}}|{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC>"


def home(
    recent: list[dict[str, Any]],
    sources: list[SourceState],
    lang: Lang,
    rentals: str | None = None,
    chart: dict[str, str] | None = None,
) -> dict[str, Any]:
    """App Home; `chart`: the last report chart of the person's channels ({"file_id", "title"})."""
    if recent:
        lines = [
            f"• {slack_time(r['created_at'])}  *{t('choice.' + r['choice'], lang)}*  {r['summary']}" for r in recent
        ]
        recent_text = t("slack.home_recent", lang) + "\n" + "\n".join(lines)
    else:
        recent_text = t("slack.home_recent", lang) + "\n" + t("slack.home_none", lang)
    source_lines = []
    for s in sources:
        state = stale_text(s, lang) if s.stale else t("slack.fresh", lang)
        when = age_text(s.age_days, lang) if s.age_days is not None else t("slack.never", lang)
        error = f" · ⚠️ {s.last_error}" if s.last_error else ""
        source_lines.append(
            t("slack.source_line", lang, source=s.source, state=state, rows=show(s.rows), when=when, error=error)
        )
    return templating.view(
        "home.json.j2",
        title=t("slack.home_title", lang),
        intro=t("slack.home_intro", lang),
        new_action=Action.NEW_PROFILE.value,
        new_label=t("slack.new_profile", lang),
        recent=recent_text,
        rentals=rentals,
        chart=chart,
        sources=t("slack.home_sources", lang) + "\n" + "\n".join(source_lines),
    )
