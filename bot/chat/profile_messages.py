"""What the profile conversation says, as neutral messages: the root, each question, an answered question, the
recommendation with its reasons and costs. Slack renders the intents with its own templates (bot/slack/ui/);
other chats show the generic parts. The reasons' and costs' lines are made here once for every chat."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.advice import Advice
from bot.chat.ids import Action, ButtonValue
from bot.chat.message import Button, Message, Section
from bot.text import Lang, t
from bot.text.catalogue import has
from bot.text.errors import error_text
from bot.text.format import forms
from bot.text.quote import notes, rows, title
from bot.text.readings import echo
from bot.text.reasons import headline, render, unanswered
from bot.text.spans import literal, mention
from pricing.errors import QuoteError
from pricing.quote import Quote
from rules.policy import Policy
from rules.questions import Step


@dataclass(frozen=True)
class Root:
    user: str
    note: str | None = None


@dataclass(frozen=True)
class Question:
    convo_id: str
    step: Step


@dataclass(frozen=True)
class Answered:
    step: Step
    answer: str | None
    user: str


@dataclass(frozen=True)
class Recommendation:
    advice: Advice
    convo_id: str
    policy: Policy


def root(user: str, lang: Lang, note: str | None = None) -> Message:
    text = t("slack.root_rest" if note else "slack.root", lang, user=mention(user))  # note: the answers kept
    return Message(
        text=text, lang=lang, sections=(Section(text),), context=(note,) if note else (), intent=Root(user, note)
    )


def step_title(step: Step, lang: Lang) -> str:
    text = t(f"question.{step.ask.key}", lang)
    if step.required:
        return t("slack.question", lang, n=step.number, total=step.total, text=text)
    return t("slack.follow_up", lang, text=text)


def answer_label(step: Step, value: str, lang: Lang) -> str:
    return t(f"answer.{step.ask.key}.{value}", lang)


def question_buttons(convo_id: str, step: Step, lang: Lang) -> list[Button]:
    """The usual answers, then "estimate from the model" where the question has one, then Skip if optional."""
    ask = step.ask
    found = [
        Button(f"{Action.ANSWER}:{i}", ButtonValue(c=convo_id, k=ask.key, v=value).model_dump_json(), label)
        for i, value in enumerate(ask.options)
        for label in [answer_label(step, value, lang)]
    ]
    empty = ButtonValue(c=convo_id, k=ask.key, v=None).model_dump_json()
    if step.model:  # the model the kind of work named: its estimate is the answer, as if typed
        said = ButtonValue(c=convo_id, k=ask.key, v=step.model).model_dump_json()
        found.append(
            Button(f"{Action.ANSWER}:{len(ask.options)}", said, t("slack.from_said_model", lang, model=step.model))
        )
    if has(f"question.{ask.key}.hint"):
        found.append(Button(Action.FROM_MODEL.value, empty, t("slack.from_model", lang)))
    if not step.required:
        found.append(Button(Action.SKIP.value, empty, t("slack.skip", lang)))
    return found


def examples(step: Step, lang: Lang, quote: Any = None) -> str:
    shown = forms(step.ask.accepted(), lang)[:5]
    return ", ".join(f"`{quote(a) if quote else a}`" for a in shown)


def question(convo_id: str, step: Step, lang: Lang) -> Message:
    heading = step_title(step, lang)
    return Message(
        text=t(f"question.{step.ask.key}", lang),
        lang=lang,
        sections=(Section(heading),),
        buttons=tuple(question_buttons(convo_id, step, lang)),
        context=(t("slack.type_hint", lang, examples=examples(step, lang)),),
        intent=Question(convo_id, step),
    )


def read_back(step: Step, answer: str, lang: Lang) -> str | None:
    """What a typed answer was read as, when it needed reading ("10 h (from “十来个小时”)"); None otherwise."""
    from rules.answers import derived
    from rules.errors import ParseError

    try:
        value = step.ask.parse(answer)
    except ParseError:  # a measured answer's own text ("from the capture"): said as it is
        return None
    return echo(step.ask.key, answer, value, lang, derived(step.ask.key, answer).get("model_parallel_cards"))


def answered_line(step: Step, answer: str | None, user: str, lang: Lang) -> str:
    label = answer_label(step, answer, lang) if answer and answer in step.ask.options else answer
    if answer and label == answer:
        label = read_back(step, answer, lang) or answer
    if answer:
        return t("slack.answered", lang, answer=literal(label), user=mention(user))
    return t("slack.skipped", lang, user=mention(user))


def answered(step: Step, answer: str | None, user: str, lang: Lang) -> Message:
    return Message(
        text=f"{t(f'question.{step.ask.key}', lang)} {answer or ''}",
        lang=lang,
        sections=(Section(step_title(step, lang)),),
        context=(answered_line(step, answer, user, lang),),
        intent=Answered(step, answer, user),
    )


def costs(
    quote: Quote | None,
    error: QuoteError | None,
    policy: Policy,
    lang: Lang,
    assumed: bool = False,
    *,
    serving_given: bool = False,
) -> dict[str, Any]:
    """The costs part: a title (with the schedule assumed, if any), a line for each option, the notes."""
    if quote is None:
        reason = error_text(error, lang, where="chat") if error is not None else "?"
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


def why(advice: Advice, lang: Lang) -> str:
    """The rules that fired and those that did not, the verdict's reasons, the warnings, what is missing."""
    decision = advice.decision
    lines = [t("slack.why", lang)]
    lines += [("✅ " if check.fired else "▫️ ") + render(check, lang, "chat") for check in decision.checks]
    lines += [f"→ {render(reason, lang, 'slack')}" for reason in decision.verdict]
    lines += [f"⚠️ {render(warning, lang, 'slack')}" for warning in decision.warnings]
    if decision.missing:
        lines.append(f"_{unanswered(decision.missing, lang)}_")
    return "\n".join(lines)


def guidance(advice: Advice, lang: Lang) -> list[str]:
    """The scenario and phase guidance, one paragraph a topic."""
    groups: dict[str, list[str]] = {}
    for item in advice.decision.guidance:
        groups.setdefault(item.topic.value, []).append(f"• {render(item, lang, 'slack')}")
    return [f"*{t('topic.' + topic, lang)}*\n" + "\n".join(lines) for topic, lines in groups.items()]


def advice_costs(advice: Advice, policy: Policy, lang: Lang) -> dict[str, Any]:
    return costs(
        advice.quote,
        advice.quote_error,
        policy,
        lang,
        advice.schedule_assumed,
        serving_given=advice.profile.serving_hours is not None,
    )


def recommendation(advice: Advice, convo_id: str, policy: Policy, lang: Lang) -> Message:
    header = f"{t('recommendation', lang)}: {headline(advice.decision, lang)}"
    priced = advice_costs(advice, policy, lang)
    value = ButtonValue(c=convo_id).model_dump_json()
    sections = [Section(why(advice, lang)), *(Section(g) for g in guidance(advice, lang)), Section(priced["title"])]
    sections += [Section(line) for line in priced["rows"]]
    return Message(
        text=header,
        lang=lang,
        title=header,
        sections=tuple(sections),
        context=(priced["notes"],) if priced["notes"] else (),
        buttons=(
            Button(Action.CHANGE.value, value, t("slack.change", lang)),
            Button(Action.RESTART.value, value, t("slack.restart", lang)),
            Button(Action.RENTED.value, value, t("digest.button.rented", lang)),
        ),
        intent=Recommendation(advice, convo_id, policy),
    )


def from_model_prompt(service: bool, user: str, lang: Lang) -> str:
    """Estimate from the model (question 2): what to reply in the thread ("7B LoRA"; for a `service`, the served
    model's size, context and concurrency)."""
    named = (
        ["7B serve", "Qwen2.5-7B 8k x 16", "Llama-3.1-70B int4 4k×32"]
        if service
        else ["7B LoRA", "13B 全参微调", "72B QLoRA", "13B full fine-tune"]
    )
    examples = ", ".join(f"`{a}`" for a in forms(named, lang))
    key = "slack.from_model_prompt_service" if service else "slack.from_model_prompt"
    return t(key, lang, user=mention(user), examples=examples)
