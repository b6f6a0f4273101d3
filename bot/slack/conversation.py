"""The profiling conversation in Slack: start it, ask each question, take answers, post the result.

Each answer is parsed once, when it is given: the conversation keeps the text (to show it and to
pre-fill the form) and the parsed value (to decide), so a restart reads the same answers back.
"""

from __future__ import annotations

from typing import Any

from slack_sdk import WebClient

from bot.advice import Advice, advise
from bot.deps import Deps
from bot.slack import access
from bot.slack.access import Gate
from bot.slack.replies import post_or_dm
from bot.slack.ui import blocks
from bot.state import Conversation
from bot.text import Lang, t
from bot.text.errors import parse_error_text
from bot.text.reasons import headline
from rules.answers import dump_answers, load_answers, parse_answers
from rules.capture import Measured
from rules.errors import ParseError
from rules.questions import Step, steps

SKIP_WORDS = {"skip", "pass", "-", "跳过", "略过", "不填"}


def parsed(convo: Conversation) -> dict[str, Any]:
    """The answers given so far, as parsed values (skipped ones left out)."""
    given = {k: v for k, v in convo.answers.items() if v}
    if set(given) <= set(convo.values):
        return load_answers({k: convo.values[k] for k in given})
    return parse_answers(given)  # a conversation kept before parsed values were stored


def set_answers(convo: Conversation, answers: dict[str, str], values: dict[str, Any]) -> None:
    """Replace every answer: the texts, and their parsed values (parse_answers of the same texts)."""
    convo.answers = dict(answers)
    convo.values = dump_answers(values)


def current(convo: Conversation) -> Step | None:
    """The first unanswered question of this conversation, or None when all are answered."""
    return next((step for step in steps(parsed(convo)) if step.ask.key not in convo.answers), None)


def record(convo: Conversation, step: Step, text: str | None, value: Any = None) -> None:
    """Keep an answer (None skips an optional question): `value` when it is known (a measured answer),
    else `text` parsed. Raises ParseError and keeps nothing if unreadable."""
    key = step.ask.key
    if text is None:
        if step.required:
            raise ValueError(f"{key} cannot be skipped")
        convo.answers[key] = ""
        return
    value = step.ask.parse(text) if value is None else value
    convo.answers[key] = text.strip()
    convo.values = {**convo.values, **dump_answers({key: value})}


def prefill(convo: Conversation, answers: dict[str, Measured]) -> dict[str, str]:
    """Record measured answers (for questions this conversation asks) not answered yet, except the open
    one: take_answer does that, so its message is marked answered. Returns what was recorded."""
    open_step = current(convo)
    done: dict[str, str] = {}
    for key, measured in answers.items():
        if key in convo.answers or (open_step is not None and open_step.ask.key == key):
            continue
        convo.values = {**convo.values, **dump_answers({key: measured.value})}
        convo.answers[key] = measured.text
        done[key] = measured.text
    return done


def start(deps: Deps, client: WebClient, *, team: str, channel: str, user: str, lang: Lang) -> Conversation:
    """Post the root message (in a DM if the channel refuses) and ask question 1 in its thread."""
    convo = deps.conversations.create(team=team, channel=channel, user=user, lang=lang.value)
    # Held until question 1 and its message are saved: a click on it that comes at once (it is on screen as
    # soon as it is posted) waits, instead of reading the conversation before it knows its own question.
    with deps.store.lock(convo.id):
        posted = post_or_dm(
            client,
            channel=channel,
            user=user,
            blocks=blocks.root(user, lang),
            text=t("slack.root", lang, user=user),
            lang=lang,
        )
        convo.channel, convo.thread_ts = posted.channel, posted.ts
        convo.note = posted.moved_because
        deps.conversations.save(convo)
        ask_next(deps, client, convo)
    return convo


def admit(deps: Deps, client: WebClient, convo: Conversation, channel: str, user: str) -> bool:
    """Does an answer from `user` count (access.gate)? If not, say why: ephemerally, or in the thread."""
    lang = Lang(convo.lang)
    verdict = access.gate(convo, user, deps.now(), deps.conversation_ttl)
    if verdict is Gate.NOT_STARTER:
        client.chat_postEphemeral(channel=channel, user=user, text=t("slack.only_starter", lang, user=convo.user))
    elif verdict is Gate.EXPIRED:
        if convo.status != "expired":
            convo.status = "expired"
            deps.conversations.save(convo)
        client.chat_postMessage(
            channel=convo.channel,
            thread_ts=convo.thread_ts,
            text=t("slack.expired", lang, hours=deps.settings.conversation_ttl_hours),
        )
    return verdict is Gate.OPEN


def ask_next(deps: Deps, client: WebClient, convo: Conversation) -> None:
    """Post the next open question, or the recommendation when none is left."""
    step = current(convo)
    if step is None:
        finish(deps, client, convo)
        return
    lang = Lang(convo.lang)
    reply = client.chat_postMessage(
        channel=convo.channel,
        thread_ts=convo.thread_ts,
        blocks=blocks.question(convo.id, step, lang),
        text=t(f"question.{step.ask.key}", lang),
    )
    convo.question_ts, convo.step = reply["ts"], len(convo.answers) + 1
    deps.conversations.save(convo)


def take_answer(
    deps: Deps,
    client: WebClient,
    convo: Conversation,
    key: str,
    text: str | None,
    user: str,
    input_key: str | None = None,
    value: Any = None,
) -> None:
    """Record an answer to the open question `key` (None skips it), mark it answered, go on.

    `input_key` names the request that carried the answer: when it was already applied (the work is
    redone after a crash), only the steps after recording are finished. Raises ParseError (nothing
    recorded) when the text does not parse."""
    if input_key is not None and convo.last_input == input_key:
        if convo.question_ts is None and convo.status == "active":
            ask_next(deps, client, convo)  # crashed between recording the answer and asking on
        return
    step = current(convo)
    if step is None or step.ask.key != key:
        return  # a second click on an old button: nothing to do
    record(convo, step, text, value)
    convo.last_input = input_key
    answered_ts = convo.question_ts
    convo.question_ts = None
    deps.conversations.save(convo)  # the answer is on disk before anything is said about it
    lang = Lang(convo.lang)
    if answered_ts:
        client.chat_update(
            channel=convo.channel,
            ts=answered_ts,
            blocks=blocks.answered(step, text, user, lang),
            text=f"{t(f'question.{key}', lang)} {text or ''}",
        )
    ask_next(deps, client, convo)


def typed_answer(
    deps: Deps, client: WebClient, convo: Conversation, text: str, user: str, input_key: str | None = None
) -> None:
    """A reply typed in the thread: parse it for the open question; on failure say what is accepted."""
    if input_key is not None and convo.last_input == input_key:
        take_answer(deps, client, convo, "", None, user, input_key)  # a redo: finish what was started
        return
    step = current(convo)
    if step is None:
        return
    answer: str | None = text.strip()
    if not step.required and answer and answer.lower() in SKIP_WORDS:
        answer = None
    try:
        take_answer(deps, client, convo, step.ask.key, answer, user, input_key)
    except ParseError as exc:
        client.chat_postMessage(
            channel=convo.channel, thread_ts=convo.thread_ts, text=parse_error_text(exc, Lang(convo.lang), "slack")
        )


def recommend(deps: Deps, convo: Conversation) -> Advice:
    """The decision for the conversation's answers, priced (on a schedule assumed when none was given)."""
    return advise(
        parsed(convo), deps.policy, quoter=deps.prices.quote, currency=deps.settings.currency, assume_schedule=True
    )


def finish(deps: Deps, client: WebClient, convo: Conversation) -> None:
    """Post the recommendation in the conversation's thread (or as a message) and remember it."""
    lang = Lang(convo.lang)
    advice = recommend(deps, convo)
    message = blocks.recommendation(advice, convo.id, deps.policy, lang)
    text = f"{t('recommendation', lang)}: {headline(advice.decision, lang)}"
    if convo.thread_ts:
        client.chat_postMessage(channel=convo.channel, thread_ts=convo.thread_ts, blocks=message, text=text)
    else:
        posted = post_or_dm(client, channel=convo.channel, user=convo.user, blocks=message, text=text, lang=lang)
        convo.channel, convo.thread_ts = posted.channel, posted.ts
    convo.status = "done"
    deps.conversations.save(convo)
    deps.metrics.decisions.labels(advice.decision.choice.value).inc()
    summary = " · ".join(convo.answers[k] for k in ("duration", "memory", "workload", "gpu") if convo.answers.get(k))
    deps.users.add_recommendation(convo.team, convo.user, advice.decision.choice.value, summary, advice.to_json(lang))
