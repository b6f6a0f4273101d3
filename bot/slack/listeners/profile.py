"""Button presses: an answer, Skip, Change an answer, Start over, New profile."""

from __future__ import annotations

from bot.chat.ids import ButtonValue
from bot.chat.profile_messages import from_model_prompt
from bot.deps import Deps
from bot.slack import conversation
from bot.slack.replies import lang_for
from bot.slack.request import SlackRequest
from bot.slack.ui import blocks
from bot.slack.ui.forms import FormMeta
from bot.text import Lang
from rules.questions import is_inference


def _value(request: SlackRequest) -> ButtonValue:
    return ButtonValue.model_validate_json(request.action["value"])


def on_answer(deps: Deps, request: SlackRequest) -> None:
    """A usual-answer button, or Skip: the answer to the open question, if the presser may answer."""
    user = request.body["user"]["id"]
    value = _value(request)
    with deps.store.lock(value.c):
        convo = deps.conversations.get(value.c, request.team)
        if convo is None or not conversation.admit(deps, request.client, convo, request.channel or convo.channel, user):
            return
        conversation.take_answer(deps, request.client, convo, value.k, value.v, user, request.inbox_key)


def on_from_model(deps: Deps, request: SlackRequest) -> None:
    """Estimate from the model (question 2): say in the thread what to reply ("7B LoRA")."""
    convo = deps.conversations.get(_value(request).c, request.team)
    if convo is None or not convo.thread_ts:
        return
    prompt = from_model_prompt(is_inference(conversation.parsed(convo)), request.body["user"]["id"], Lang(convo.lang))
    request.client.chat_postMessage(channel=convo.channel, thread_ts=convo.thread_ts, text=prompt)


def on_change(deps: Deps, request: SlackRequest) -> None:
    """Change an answer: the profile form, pre-filled with the answers given, opened for the presser."""
    convo = deps.conversations.get(_value(request).c, request.team)
    if convo is None:
        return
    lang = Lang(convo.lang)
    meta = FormMeta(c=convo.id, ch=convo.channel, lang=lang.value).model_dump_json()
    request.client.views_open(trigger_id=request.body["trigger_id"], view=blocks.form(convo.answers, meta, lang))


def on_restart(deps: Deps, request: SlackRequest) -> None:
    """Start over: a new profile for the presser, in the same channel."""
    user = request.body["user"]["id"]
    conversation.start(
        deps,
        request.client,
        team=request.team,
        channel=request.channel or user,
        user=user,
        lang=lang_for(request.client, deps, user),
    )


def on_new_profile(deps: Deps, request: SlackRequest) -> None:
    """New profile (App Home): a new profile in a DM with the presser."""
    user = request.body["user"]["id"]
    dm = request.client.conversations_open(users=user)["channel"]["id"]
    conversation.start(
        deps, request.client, team=request.team, channel=dm, user=user, lang=lang_for(request.client, deps, user)
    )
