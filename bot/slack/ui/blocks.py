"""What each Slack message and view says: the context of each template, from the same Advice the terminal prints."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.advice import Advice
from bot.chat import profile_messages
from bot.fields.answers import FORM_FIELDS
from bot.slack.ids import Action, ButtonValue, Callback
from bot.slack.ui import templating
from bot.text import Lang, t
from bot.text.format import forms
from bot.text.quote import source_line
from bot.text.reasons import headline
from bot.text.spans import mention
from pricing.quote import Quote
from pricing.status import SourceState
from rules.policy import Policy
from rules.questions import INFERENCE_KEYS, Step


def root(user: str, lang: Lang, note: str | None = None) -> list[dict[str, Any]]:
    text = t("slack.root_rest" if note else "slack.root", lang, user=mention(user))  # note: the answers kept
    return templating.message("root.json.j2", text=text, note=note)


def question(convo_id: str, step: Step, lang: Lang) -> list[dict[str, Any]]:
    buttons = [
        {"action_id": b.action, "label": b.label, "primary": False, "value": b.value}
        for b in profile_messages.question_buttons(convo_id, step, lang)
    ]
    hint = t("slack.type_hint", lang, examples=profile_messages.examples(step, lang, templating.escape))
    return templating.message(
        "question.json.j2", title=profile_messages.step_title(step, lang), buttons=buttons, hint=hint
    )


def answered(step: Step, answer: str | None, user: str, lang: Lang) -> list[dict[str, Any]]:
    text = profile_messages.answered_line(step, answer, user, lang)
    return templating.message("answered.json.j2", title=profile_messages.step_title(step, lang), answer=text)


costs = profile_messages.costs


def recommendation(advice: Advice, convo_id: str, policy: Policy, lang: Lang) -> list[dict[str, Any]]:
    return templating.message(
        "recommendation.json.j2",
        header=f"{t('recommendation', lang)}: {headline(advice.decision, lang)}",
        why=profile_messages.why(advice, lang),
        advice=profile_messages.guidance(advice, lang),
        costs=profile_messages.advice_costs(advice, policy, lang),
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
    """Sections of text, each part parted between its lines where it is longer than a section takes."""
    return templating.message("text.json.j2", parts=[piece for p in parts if p for piece in templating.pieces(p)])


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
    source_lines = [source_line(s, lang) for s in sources]
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
