"""Context for each Slack template: the same decision and quote data the terminal prints, as Block Kit."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from bot import blocks, quote_view
from bot.ids import Action, Callback
from bot.recommend import Recommendation
from bot.texts import age_text, t
from pricing.quote import Quote
from pricing.status import SourceState
from rules.messages import Lang, show, ui
from rules.policy import Policy
from rules.questions import BY_KEY, FIVE, Ask


class ButtonValue(BaseModel):
    """What a button carries: the conversation, the question, and the answer (None: skip)."""

    model_config = ConfigDict(frozen=True)

    c: str
    k: str = ""
    v: str | None = None


def root(user: str, lang: Lang, note: str | None = None) -> list[dict[str, Any]]:
    return blocks.message("root.json.j2", text=t("slack.root", lang, user=user), note=note)


def _title(number: int, ask: Ask, lang: Lang) -> str:
    if ask.required:
        return t("slack.question", lang, n=number, total=len(FIVE), text=ask.text(lang))
    return t("slack.follow_up", lang, text=ask.text(lang))


def question(convo_id: str, number: int, ask: Ask, lang: Lang) -> list[dict[str, Any]]:
    buttons = [{"action_id": f"{Action.ANSWER}:{i}", "label": o.label(lang), "primary": False,
                "value": ButtonValue(c=convo_id, k=ask.key, v=o.value).model_dump_json()}
               for i, o in enumerate(ask.options)]
    if not ask.required:
        buttons.append({"action_id": Action.SKIP.value, "label": t("slack.skip", lang), "primary": False,
                        "value": ButtonValue(c=convo_id, k=ask.key, v=None).model_dump_json()})
    hint = t("slack.type_hint", lang, examples=", ".join(f"`{blocks.escape(a)}`" for a in ask.accepted()[:5]))
    return blocks.message("question.json.j2", title=_title(number, ask, lang), buttons=buttons, hint=hint)


def answered(number: int, ask: Ask, answer: str | None, user: str, lang: Lang) -> list[dict[str, Any]]:
    label = next((o.label(lang) for o in ask.options if o.value == answer), answer)
    if answer:
        text = t("slack.answered", lang, answer=blocks.escape(label), user=user)
    else:
        text = t("slack.skipped", lang, user=user)
    return blocks.message("answered.json.j2", title=_title(number, ask, lang), answer=text)


def costs(quote: Quote | None, error: str | None, policy: Policy, lang: Lang,
          assumed: bool = False) -> dict[str, Any]:
    if quote is None:
        return {"title": t("slack.costs", lang) + "\n" + t("slack.no_quote", lang, reason=error or "?"),
                "rows": [], "notes": ""}
    title = f"{t('slack.costs', lang)}  {quote_view.title(quote, lang)}"
    if assumed:
        title += "\n_" + t("slack.assumed_schedule", lang, hours=quote.hours_per_day, days=quote.days) + "_"
    rows = []
    for row in quote_view.rows(quote, policy, lang):
        rows.append(f"*{row.option}*  {row.cost}\n{row.billing}\n_{row.source}_")
    return {"title": title, "rows": rows, "notes": "\n".join(quote_view.notes(quote, lang))}


def recommendation(rec: Recommendation, convo_id: str, policy: Policy, lang: Lang) -> list[dict[str, Any]]:
    data = rec.data
    why = [t("slack.why", lang)]
    for check in data["checks"]:
        why.append(("✅ " if check["fired"] else "▫️ ") + check["text"])
    why += [f"→ {reason}" for reason in data["reasons"][len(data["hits"]):]]
    if data["missing"]:
        why.append(f"_{ui('missing', lang)}: {', '.join(data['missing'])}_")
    groups: dict[str, list[str]] = {}
    for advice in data["advice"]:
        groups.setdefault(advice["topic"], []).append(f"• {advice['text']}")
    advice = [f"*{ui('topic.' + topic, lang)}*\n" + "\n".join(lines) for topic, lines in groups.items()]
    return blocks.message(
        "recommendation.json.j2",
        header=f"{ui('recommendation', lang)}: {data['choice_text']}", why="\n".join(why), advice=advice,
        costs=costs(rec.quote, rec.quote_error, policy, lang, rec.schedule_assumed),
        change_action=Action.CHANGE.value, change_label=t("slack.change", lang),
        restart_action=Action.RESTART.value, restart_label=t("slack.restart", lang),
        value=ButtonValue(c=convo_id).model_dump_json(),
    )


def quote_message(quote: Quote, policy: Policy, lang: Lang) -> list[dict[str, Any]]:
    return blocks.message("quote.json.j2", costs=costs(quote, None, policy, lang))


def text(*parts: str) -> list[dict[str, Any]]:
    return blocks.message("text.json.j2", parts=[p for p in parts if p])


FORM_KEYS = ("duration", "memory", "model_parallel", "frequency", "can_resume", "workload", "phase", "gpu",
             "schedule", "qps", "p99_ms")


def form(answers: dict[str, str], metadata: str, lang: Lang) -> dict[str, Any]:
    fields = []
    for key in FORM_KEYS:
        ask = BY_KEY[key]
        fields.append({"key": key, "label": ask.text(lang), "required": ask.required,
                       "hint": ", ".join(ask.accepted()[:6]), "placeholder": ask.accepted()[0],
                       "initial": answers.get(key, "")})
    return blocks.view("form.json.j2", callback_id=Callback.PROFILE_FORM.value, metadata=metadata,
                       title=t("slack.form_title", lang), submit=t("slack.form_submit", lang),
                       cancel=t("slack.form_cancel", lang), fields=fields)


def home(recent: list[dict[str, Any]], sources: list[SourceState], lang: Lang) -> dict[str, Any]:
    if recent:
        lines = [f"• {r['created_at'][:16].replace('T', ' ')}  *{ui('choice.' + r['choice'], lang)}*  {r['summary']}"
                 for r in recent]
        recent_text = t("slack.home_recent", lang) + "\n" + "\n".join(lines)
    else:
        recent_text = t("slack.home_recent", lang) + "\n" + t("slack.home_none", lang)
    source_lines = []
    for s in sources:
        state = t("stale", lang) if s.stale else t("slack.fresh", lang)
        when = (age_text(s.age_days, lang) if s.age_days is not None else t("slack.never", lang))
        error = f" · ⚠️ {s.last_error}" if s.last_error else ""
        source_lines.append(t("slack.source_line", lang, source=s.source, state=state, rows=show(s.rows), when=when,
                              error=error))
    return blocks.view("home.json.j2", title=t("slack.home_title", lang), intro=t("slack.home_intro", lang),
                       new_action=Action.NEW_PROFILE.value, new_label=t("slack.new_profile", lang),
                       recent=recent_text, sources=t("slack.home_sources", lang) + "\n" + "\n".join(source_lines))
