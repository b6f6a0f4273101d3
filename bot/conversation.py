"""The profiling conversation in Slack: start it, ask each question, take answers, post the result."""

from __future__ import annotations

from slack_sdk import WebClient

from bot import flow, slack_views
from bot.deps import Deps
from bot.recommend import recommend
from bot.slack_io import post_or_dm
from bot.store import Conversation
from bot.texts import t
from rules.errors import ParseError
from rules.messages import Lang, parse_error_text, show, ui

SKIP_WORDS = {"skip", "pass", "-", "跳过", "略过", "不填"}


def start(client: WebClient, deps: Deps, *, team: str, channel: str, user: str, lang: Lang) -> Conversation:
    """Post the root message (in a DM if the channel refuses) and ask question 1 in its thread."""
    convo = deps.store.create(team=team, channel=channel, user=user, lang=lang.value)
    posted = post_or_dm(client, channel=channel, user=user, blocks=slack_views.root(user, lang),
                        text=t("slack.root", lang, user=user), lang=lang)
    convo.channel, convo.thread_ts = posted.channel, posted.ts
    convo.note = posted.moved_because
    deps.store.save(convo)
    ask_next(client, deps, convo)
    return convo


def ask_next(client: WebClient, deps: Deps, convo: Conversation) -> None:
    """Post the next open question, or the recommendation when none is left."""
    nxt = flow.current(convo)
    if nxt is None:
        finish(client, deps, convo)
        return
    number, ask = nxt
    lang = Lang(convo.lang)
    reply = client.chat_postMessage(channel=convo.channel, thread_ts=convo.thread_ts,
                                    blocks=slack_views.question(convo.id, number, ask, lang), text=ask.text(lang))
    convo.question_ts, convo.step = reply["ts"], number
    deps.store.save(convo)


def take_answer(client: WebClient, deps: Deps, convo: Conversation, key: str, text: str | None, user: str,
                input_key: str | None = None) -> None:
    """Record an answer to the open question `key` (None skips it), mark it answered, go on.

    `input_key` names the request that carried the answer: when it was already applied (the work is
    redone after a crash), only the steps after recording are finished. Raises ParseError (nothing
    recorded) when the text does not parse."""
    if input_key is not None and convo.last_input == input_key:
        if convo.question_ts is None and convo.status == "active":
            ask_next(client, deps, convo)  # crashed between recording the answer and asking on
        return
    nxt = flow.current(convo)
    if nxt is None or nxt[1].key != key:
        return  # a second click on an old button: nothing to do
    number, ask = nxt
    flow.record(convo, ask, text)
    convo.last_input = input_key
    answered_ts = convo.question_ts
    convo.question_ts = None
    deps.store.save(convo)  # the answer is on disk before anything is said about it
    lang = Lang(convo.lang)
    if answered_ts:
        client.chat_update(channel=convo.channel, ts=answered_ts,
                           blocks=slack_views.answered(number, ask, text, user, lang),
                           text=f"{ask.text(lang)} {text or ''}")
    ask_next(client, deps, convo)


def typed_answer(client: WebClient, deps: Deps, convo: Conversation, text: str, user: str,
                 input_key: str | None = None) -> None:
    """A reply typed in the thread: parse it for the open question; on failure say what is accepted."""
    if input_key is not None and convo.last_input == input_key:
        take_answer(client, deps, convo, "", None, user, input_key)  # a redo: finish what was started
        return
    nxt = flow.current(convo)
    if nxt is None:
        return
    _, ask = nxt
    lang = Lang(convo.lang)
    answer: str | None = text.strip()
    if not ask.required and answer and answer.lower() in SKIP_WORDS:
        answer = None
    try:
        take_answer(client, deps, convo, ask.key, answer, user, input_key)
    except ParseError as exc:
        client.chat_postMessage(channel=convo.channel, thread_ts=convo.thread_ts,
                                text=parse_error_text(exc.text, exc.problem, exc.accepted, lang))


def finish(client: WebClient, deps: Deps, convo: Conversation) -> None:
    """Post the recommendation in the conversation's thread (or as a message) and remember it."""
    lang = Lang(convo.lang)
    rec = recommend(flow.given(convo.answers), deps, lang)
    blocks = slack_views.recommendation(rec, convo.id, deps.policy, lang)
    text = f"{ui('recommendation', lang)}: {rec.data['choice_text']}"
    if convo.thread_ts:
        client.chat_postMessage(channel=convo.channel, thread_ts=convo.thread_ts, blocks=blocks, text=text)
    else:
        posted = post_or_dm(client, channel=convo.channel, user=convo.user, blocks=blocks, text=text, lang=lang)
        convo.channel, convo.thread_ts = posted.channel, posted.ts
    convo.status = "done"
    deps.store.save(convo)
    summary = " · ".join(show(v) for k, v in flow.given(convo.answers).items() if k in ("duration", "memory",
                                                                                          "workload", "gpu"))
    deps.store.add_recommendation(convo.team, convo.user, rec.data["choice"], summary, rec.data)
