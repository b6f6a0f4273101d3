"""The profiling conversation on any chat: start it, ask each question, take answers, post the result.

Each answer is parsed once, when it is given: the conversation keeps the text (to show it and to pre-fill the
form) and the parsed value (to decide), so a restart reads the same answers back. Everything said goes through
the chat port (bot/chat/port.py); bot/slack/ and bot/feishu/ call these with their chat."""

from __future__ import annotations

import contextlib
import hashlib
import time
from datetime import datetime
from functools import partial
from typing import Any

from bot.advice import Advice, advise
from bot.chat import profile_messages as says
from bot.chat.access import Gate, gate
from bot.chat.message import Message, plain
from bot.chat.port import Chat, Place, Posted, Say
from bot.deps import Deps
from bot.state import Conversation
from bot.text import Lang, t
from bot.text.errors import parse_error_text
from bot.text.spans import mention
from rules.answers import (
    DERIVED,
    answer_in_context,
    derived,
    dump_answers,
    load_answers,
    offered_for,
    parse_answers,
    with_model_offered,
)
from rules.capture import Measured
from rules.clauses import answers_in, asks, clauses
from rules.errors import NEEDS_ONE_MORE_WORD, ParseError
from rules.questions import Step, skips, steps

SETTLE_POLL_S = 2.0  # conversations.replies is Slack's tier 3 (50+ a minute): one look every 2 s stays within it


def parsed(convo: Conversation) -> dict[str, Any]:
    """The answers given so far, as parsed values (skipped ones left out)."""
    given = {k: v for k, v in convo.answers.items() if v}
    if set(given) <= set(convo.values):
        extra = [d for k in given for d in DERIVED.get(k, ()) if d in convo.values]  # "yes, 4 cards"'s 4
        return load_answers({k: convo.values[k] for k in [*given, *extra]})
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
    value = answer_in_context(key, text, convo.values) if value is None else value
    convo.answers[key] = text.strip()
    kept = {k: v for k, v in convo.values.items() if k not in DERIVED.get(key, ())}  # a new answer replaces them
    convo.values = {**kept, **dump_answers({key: value, **derived(key, text)})}


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


def place_of(chat: Chat, convo: Conversation) -> Place:
    return Place(chat.platform, convo.team, convo.channel, convo.thread_ts)


def start(
    deps: Deps,
    chat: Chat,
    *,
    team: str,
    channel: str,
    user: str,
    lang: Lang,
    answers: dict[str, str] | None = None,
    values: dict[str, Any] | None = None,
    note: str | None = None,
) -> Conversation:
    """Post the root message (in a DM if the chat refuses; `note` under it) and ask the first question not answered
    yet in its thread (`answers` and their `values`: given before, as typed in one line with some missing)."""
    convo = deps.conversations.create(
        team=team, channel=channel, user=user, lang=lang.value, answers=answers, values=values
    )
    # Held until question 1 and its message are saved: a click on it that comes at once (it is on screen as
    # soon as it is posted) waits, instead of reading the conversation before it knows its own question.
    with deps.store.lock(convo.id):
        say = partial(says.root, user, note=note)
        posted = chat.post(Place(chat.platform, team, channel), say, lang, fallback_user=user)
        convo.channel, convo.thread_ts = posted.place.channel, posted.id
        convo.note = posted.moved_because
        deps.conversations.save(convo)
        ask_next(deps, chat, convo)
    return convo


def admit(deps: Deps, chat: Chat, convo: Conversation, channel: str, user: str) -> bool:
    """Does an answer from `user` count (access.gate)? If not, say why: to that user, or in the thread."""
    lang = Lang(convo.lang)
    verdict = gate(convo, user, deps.now(), deps.conversation_ttl)
    if verdict is Gate.NOT_STARTER:
        chat.tell(
            Place(chat.platform, convo.team, channel), user, t("slack.only_starter", lang, user=mention(convo.user))
        )
    elif verdict is Gate.EXPIRED:
        if convo.status != "expired":
            convo.status = "expired"
            deps.conversations.save(convo)
        hours = deps.settings.slack.conversation_ttl_hours
        chat.post(place_of(chat, convo), lambda lang: plain(t("slack.expired", lang, hours=hours), lang), lang)
    return verdict is Gate.OPEN


def post_key(convo: Conversation, what: str) -> str:
    """The key of a post `what` (a question's number, "r" for the recommendation) made after the conversation's
    last input: a redo of that input makes the same key, a new answer a new one (Feishu sends one message per key
    within an hour, so a question asked again later must not reuse it). 35 characters."""
    digest = hashlib.sha256(f"{convo.id}|{convo.last_input}|{what}".encode()).hexdigest()[:32]
    return f"{what}-{digest}"


def post_once(deps: Deps, chat: Chat, convo: Conversation, what: str, say: Say) -> Posted:
    """Post `say` in the conversation's thread once, also across a kill between the post and keeping its id:
    the key is kept before posting, and a redo that finds it kept looks for that message in the thread first."""
    key = post_key(convo, what)
    place = place_of(chat, convo)
    if convo.asking == key:  # a redo: the message may be in the chat already
        found = find_settled(deps, chat, place, key, convo.asking_at)
        if found is not None:
            return found
    convo.asking, convo.asking_at = key, deps.now()
    deps.conversations.save(convo)
    return chat.post(place, say, Lang(convo.lang), key=key)


def find_settled(deps: Deps, chat: Chat, place: Place, key: str, began: datetime | None) -> Posted | None:
    """The message posted with `key`, looked for again every SETTLE_POLL_S seconds while a send that began at
    `began` may still be on its way into the chat (Slack showed one in its thread 15 s after taking it, and a
    work process killed mid-send is redone at once on its restart); None once it has settled unseen (the send
    was lost: post it again). Waits only in that redo, at most the chat's `settles_in`."""
    found = chat.find(place, key)
    settles = chat.settles_in
    if found is not None or settles is None or began is None:
        return found
    deadline = time.monotonic() + max(0.0, (settles - (deps.now() - began)).total_seconds())
    while found is None and (left := deadline - time.monotonic()) > 0:
        time.sleep(min(SETTLE_POLL_S, left))
        found = chat.find(place, key)
    return found


def ask_next(deps: Deps, chat: Chat, convo: Conversation) -> None:
    """Post the next open question, or the recommendation when none is left."""
    step = current(convo)
    if step is None:
        finish(deps, chat, convo)
        return
    asked = len(convo.answers) + 1
    step = with_model_offered(step, convo.answers.get("workload") or "", convo.values)
    reply = post_once(deps, chat, convo, str(asked), partial(says.question, convo.id, step))
    convo.question_ts, convo.step, convo.asking, convo.asking_at = reply.id, asked, None, None
    deps.conversations.save(convo)


def take_answer(
    deps: Deps,
    chat: Chat,
    convo: Conversation,
    key: str,
    text: str | None,
    user: str,
    input_key: str | None = None,
    value: Any = None,
    also: dict[str, str] | None = None,
) -> None:
    """Record an answer to the open question `key` (None skips it), mark it answered, go on.

    `input_key` names the request that carried the answer: when it was already applied (the work is
    redone after a crash), only the steps after recording are finished. Raises ParseError (nothing
    recorded) when the text does not parse. `also`: later questions the same reply answers, each with its clause
    (rules/clauses.py), kept with it where they are still asked after it."""
    if input_key is not None and convo.last_input == input_key:
        if convo.question_ts is None and convo.status == "active":
            ask_next(deps, chat, convo)  # crashed between recording the answer and asking on
        return
    step = current(convo)
    if step is None or step.ask.key != key:
        return  # a second click on an old button: nothing to do
    record(convo, step, text, value)
    for later, clause in (also or {}).items():
        _record_later(convo, later, clause)
    convo.last_input = input_key
    answered_id = convo.question_ts
    convo.question_ts = None
    deps.conversations.save(convo)  # the answer is on disk before anything is said about it
    if answered_id:
        chat.update(
            Posted(place_of(chat, convo), answered_id), partial(says.answered, step, text, user), Lang(convo.lang)
        )
    ask_next(deps, chat, convo)


def _record_later(convo: Conversation, key: str, clause: str) -> None:
    """A later question's answer given beside the open one's: kept where the profile still asks it, read with the
    answers before it (the kind of work just given, for a model's memory)."""
    later = next((s for s in steps(parsed(convo)) if s.ask.key == key and key not in convo.answers), None)
    if later is not None:
        with contextlib.suppress(ParseError):
            record(convo, later, clause)


def _also_answered(convo: Conversation, step: Step, text: str) -> tuple[str, dict[str, str]]:
    """A reply answering more than the open question, a clause each (`用lora，大概跑3个小时` on the kind of work):
    the open question's answer (the reply whole where it reads it, else its own clause) and the later questions'
    clauses; (text, {}) for a reply of one clause, or one whose open answer is unreadable either way."""
    if len(clauses(text)) < 2:
        return text, {}
    found = answers_in(text, convo.values, skip=frozenset(k for k in convo.answers if k != step.ask.key))
    # which of them the profile asks is known once the open one is kept (`推理`: then QPS and P99): _record_later
    later = {key: clause for key, clause in found.items() if key != step.ask.key}
    for answer in (text, found.get(step.ask.key)) if later else ():
        with contextlib.suppress(ParseError):
            if answer is not None:
                answer_in_context(step.ask.key, answer, convo.values)
                return answer, later
    return text, {}


def typed_answer(
    deps: Deps, chat: Chat, convo: Conversation, text: str, user: str, input_key: str | None = None
) -> None:
    """A reply typed in the thread: parse it for the open question (with the later questions its other clauses
    answer); on failure say what is accepted."""
    if input_key is not None and convo.last_input == input_key:
        take_answer(deps, chat, convo, "", None, user, input_key)  # a redo: finish what was started
        return
    step = current(convo)
    if step is None:
        return
    step = with_model_offered(step, convo.answers.get("workload") or "", convo.values)
    answer: str | None = offered_for(step, text.strip())  # 不知道, with `13B 全参微调` said: its estimate
    if not step.required and answer and skips(answer):
        answer = None
    also: dict[str, str] = {}
    if answer is not None:
        answer, also = _also_answered(convo, step, answer)
    try:
        take_answer(deps, chat, convo, step.ask.key, answer, user, input_key, also=also)
    except ParseError as exc:
        ahead, unclear = _the_next_answered(convo, step, answer, exc)
        if ahead is None and exc.problem not in NEEDS_ONE_MORE_WORD and _kept_for_later(convo, step, text):
            convo.last_input = input_key  # a redo after a crash says it once
            deps.conversations.save(convo)
            chat.post(place_of(chat, convo), partial(_kept_said, text.strip(), step), Lang(convo.lang))
        elif ahead is None:
            chat.post(place_of(chat, convo), partial(_parse_error, exc), Lang(convo.lang))
        elif unclear is None:
            record(convo, step, None)  # skipped, as the person did by answering the next question
            take_answer(deps, chat, convo, ahead.ask.key, answer, user, input_key)
        else:  # the next question's answer, needing one more word: skipped, the next asked, and asked back
            take_answer(deps, chat, convo, step.ask.key, None, user, input_key)
            chat.post(place_of(chat, convo), partial(_parse_error, unclear), Lang(convo.lang))


def _kept_for_later(convo: Conversation, step: Step, text: str) -> bool:
    """A reply that answers questions further on and not the open one (`显存峰值大概七十多G吧`, `单卡就够` asked the run
    length: refused with the run length's formats, to be typed again when asked): those kept, as a clause beside the
    open one's answer is; False where it answers none the profile still asks."""
    if asks(text):  # `4090一天多少钱`, `能中断吗`: a question, not its answer
        return False
    before = set(convo.answers)
    for later, clause in answers_in(text, convo.values, skip=frozenset(before | {step.ask.key})).items():
        _record_later(convo, later, clause)
    return bool(set(convo.answers) - before)


def _kept_said(said: str, step: Step, lang: Lang) -> Message:
    return plain(t("profile.kept_for_later", lang, said=said[:80], question=t(f"question.{step.ask.key}", lang)), lang)


def _the_next_answered(
    convo: Conversation, step: Step, text: str | None, refused: ParseError
) -> tuple[Step | None, ParseError | None]:
    """The question after an optional one, when the words answer it instead (`10小时` on the kind of work, `A100`
    on the phase: refused as the optional one's answer, they had to be typed again), with the next one's problem
    when they need one more word there (`跑一晚上`: 10 h?). None when they answer neither, or are this question's
    answer that needs one more word (asked back)."""
    if step.required or text is None or refused.problem in NEEDS_ONE_MORE_WORD:
        return None, None
    answers = convo.answers
    convo.answers = {**answers, step.ask.key: ""}
    try:
        ahead = current(convo)
        if ahead is not None:
            answer_in_context(ahead.ask.key, text, convo.values)
        return ahead, None
    except ParseError as exc:
        return (ahead, exc) if exc.problem in NEEDS_ONE_MORE_WORD else (None, None)
    finally:
        convo.answers = answers


def recommend(deps: Deps, convo: Conversation) -> Advice:
    """The decision for the conversation's answers, priced (on a schedule assumed when none was given)."""
    return advise(
        parsed(convo),
        deps.policy,
        quoter=deps.prices.quote,
        currency=deps.settings.files.currency,
        assume_schedule=True,
    )


def finish(deps: Deps, chat: Chat, convo: Conversation) -> None:
    """Post the recommendation in the conversation's thread (or as a message) and remember it."""
    lang = Lang(convo.lang)
    advice = recommend(deps, convo)
    say = partial(says.recommendation, advice, convo.id, deps.policy)
    if convo.thread_ts:
        post_once(deps, chat, convo, "r", say)
        convo.asking, convo.asking_at = None, None
    else:
        posted = chat.post(place_of(chat, convo), say, lang, fallback_user=convo.user)
        convo.channel, convo.thread_ts = posted.place.channel, posted.id
    convo.status = "done"
    deps.conversations.save(convo)
    deps.metrics.decisions.labels(advice.decision.choice.value).inc()
    summary = " · ".join(convo.answers[k] for k in ("duration", "memory", "workload", "gpu") if convo.answers.get(k))
    choice = advice.decision.choice.value
    deps.users.add_recommendation(convo.team, convo.user, choice, summary, advice.to_json(lang))


def _parse_error(error: ParseError, lang: Lang) -> Message:
    return plain(parse_error_text(error, lang, "chat"), lang)
