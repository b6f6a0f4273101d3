"""View submissions: the profile form (from `/gpu-advise form` or Change an answer)."""

from __future__ import annotations

from slack_bolt import Ack

from bot.chat import conversation
from bot.deps import Deps
from bot.slack.chat import SlackChat
from bot.slack.markup import in_slack
from bot.slack.request import SlackRequest
from bot.slack.ui.forms import FormMeta, read_form
from bot.text import Lang


def _meta(request: SlackRequest) -> FormMeta:
    return FormMeta.model_validate_json(request.body["view"].get("private_metadata") or "{}")


def check_form(deps: Deps, ack: Ack, request: SlackRequest) -> None:
    """The acknowledgement: a bad or missing answer is shown under its field, and the modal stays open."""
    _, _, errors = read_form(request.body["view"], Lang(_meta(request).lang))
    if errors:
        if request.inbox_key:
            deps.inbox.done(request.inbox_key)  # nothing to do until a corrected submission
        ack(response_action="errors", errors=in_slack(errors))
    else:
        ack()


def on_form(deps: Deps, request: SlackRequest) -> None:
    """A valid form: the answers replace the profile's (or start one), and the recommendation is posted."""
    meta = _meta(request)
    answers, values, errors = read_form(request.body["view"], Lang(meta.lang))
    if errors:
        return  # the acknowledgement already showed them
    user = request.body["user"]["id"]
    convo = deps.conversations.get(meta.c, request.team) if meta.c else None
    if convo is None:
        convo = deps.conversations.create(team=request.team, channel=meta.ch or user, user=user, lang=meta.lang)
    conversation.set_answers(convo, answers, values)
    conversation.finish(deps, SlackChat(request.client, deps), convo)
