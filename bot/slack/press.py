"""A Slack button press as the core's Press (bot/app/buttons.py): a refusal is an ephemeral line to the presser, a
form is a modal (opened with the press's trigger_id), and a digest item's answer replaces its blocks in the message
(in the message's own language). That update is a request of its own (bot/app/card_again.py): when Slack cannot be
reached for it, the press is done all the same and the update is made again by itself, not the press redone."""

from __future__ import annotations

from bot.app import card_again
from bot.app.buttons import Done, Press, Refusal, handler_for
from bot.app.invocation import Form
from bot.deps import Deps
from bot.slack.chat import SlackChat
from bot.slack.invocation import invocation
from bot.slack.listeners.digest import ephemeral, is_admin, member_of, message_ts, replace_item
from bot.slack.replies import lang_for
from bot.slack.request import SlackRequest
from bot.slack.retries import unreachable
from bot.slack.ui import blocks
from bot.slack.ui.blocks import context
from bot.slack.ui.digest import message_lang, section_blocks
from bot.slack.ui.forms import FormMeta
from bot.state import Conversation
from bot.state.schedules import Schedules
from bot.text import Lang

CARD_AGAIN_KIND = "slack_card_again"  # a pressed digest message kept to be updated again (bot/app/card_again.py)


def on_button(deps: Deps, request: SlackRequest) -> None:
    """Any button of the core's table: what it does is the core's; how it is said is Slack's."""
    action = str(request.action.get("action_id") or "")
    handler = handler_for(action)
    if handler is not None:
        handler(press_of(deps, request, action))


def _value(action: dict[str, object]) -> str:
    """What the button carries, as the core reads it: a digest item's button carries its name, its block id its
    kind (act:fi:NAME), so the two make "fi:NAME"; any other button's value as it is."""
    value, block = str(action.get("value") or ""), str(action.get("block_id") or "")
    kind = block.split(":")[1] if block.startswith("act:") and block.count(":") >= 2 else ""
    return f"{kind}:{value}" if kind else value


def press_of(deps: Deps, request: SlackRequest, action: str) -> Press:
    user, team, client = request.user or "", request.team, request.client
    lang = lang_for(client, deps, user)
    message = request.body.get("message") or {}
    posted_in = message_lang(message) or lang

    def refuse(refusal: Refusal) -> None:
        ephemeral(request, user, refusal.said(lang))

    def show_done(kind: str, name: str, done: Done) -> None:
        new = context(done.line(posted_in))
        for section in done.follow_ups(posted_in):
            if section.item is not None:
                new += section_blocks(section)
        ts = message_ts(request)
        if not ts or not request.channel:
            return
        zone = Schedules(deps.store, deps.settings.digest.default_schedule()).of(team, request.channel).zone
        card_again.keep_and_send(
            deps,
            SlackChat(client, deps),
            request.inbox_key,
            CARD_AGAIN_KIND,
            (team, request.channel, ts),
            zone,
            posted_in,
            done,
            first=lambda: replace_item(request, kind, name, new, posted_in),  # in place: other items' lines stay
            stays_pending=unreachable,
        )

    def open_form(kind: Form, initial: dict[str, str], convo: Conversation | None) -> None:
        if kind is Form.PROFILE and convo is not None:  # Change an answer: the form edits that profile
            form_lang = Lang(convo.lang)
            meta = FormMeta(c=convo.id, ch=convo.channel, lang=form_lang.value).model_dump_json()
            client.views_open(trigger_id=request.body["trigger_id"], view=blocks.form(initial, meta, form_lang))
            return
        invocation(deps, request, lang).open_form(kind, initial)

    return Press(
        deps,
        SlackChat(client, deps),
        team=team,
        channel=request.channel or "",
        user=user,
        action=action,
        value=_value(request.action),
        lang=lang,
        posted_in=posted_in,
        message_id=str(message.get("ts") or "") or None,
        is_admin=lambda: is_admin(client, user, team),
        is_member=lambda: member_of(client, user, team) is not None,
        open_form=open_form,
        refuse=refuse,
        show_done=show_done,
        request_key=request.inbox_key,
    )
