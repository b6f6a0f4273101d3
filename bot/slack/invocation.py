"""A Slack request as the core's Invocation (bot/app/invocation.py): answers to the person are ephemeral
(response_url), answers for everyone are in_channel, posts are chat.postMessage, a form is a modal."""

from __future__ import annotations

from typing import Any

from slack_sdk.errors import SlackApiError

from bot.app.invocation import CommandError, Form, Invocation
from bot.chat.message import Message
from bot.deps import Deps
from bot.fields.answers import FIELDS
from bot.slack.chat import SlackChat, generic
from bot.slack.listeners.digest import is_admin
from bot.slack.replies import CANNOT_POST, zone_for
from bot.slack.request import SlackRequest
from bot.slack.teller import slack_tellers
from bot.slack.ui import blocks, track_form
from bot.slack.ui.digest import message_blocks
from bot.slack.ui.forms import FormMeta
from bot.text import Lang, t
from bot.text.chinese_names import chinese_names


def command_blocks(message: Message) -> list[dict[str, Any]]:
    """A sub-command's answer as blocks: a plain one as its lines (a digest item's with its buttons), anything
    with more to show (a title, notes, buttons) as the generic layout."""
    if any(section.item is not None for section in message.sections):  # digest items: the digest's blocks
        return message_blocks(message)
    if message.title or message.buttons or message.context:
        return generic(message)
    return [block for section in message.sections for block in blocks.text(section.text)]


def invocation(deps: Deps, request: SlackRequest, lang: Lang) -> Invocation:
    user, channel, client = request.user or "", request.channel or "", request.client

    def answer(message: Message) -> None:
        request.respond(response_type="ephemeral", text=message.text, blocks=command_blocks(message))

    def announce(message: Message) -> None:
        request.respond(response_type="in_channel", text=message.text, blocks=command_blocks(message))

    def post(message: Message) -> None:
        try:
            client.chat_postMessage(channel=channel or user, text=message.text, blocks=command_blocks(message))
        except SlackApiError as exc:  # not in the channel: said to the person, with what to do (was "Slack refused")
            error = str(exc.response.get("error"))
            if error not in CANNOT_POST:
                raise
            raise CommandError(t("slack.cannot_post", lang, channel=f"<#{channel}>", error=error)) from None

    def open_form(kind: Form, initial: dict[str, str]) -> None:
        if kind is Form.TRACK:
            meta = track_form.TrackMeta(ch=channel or user, lang=lang.value)
            view = track_form.view(meta, initial)
        else:
            view = blocks.form(initial, FormMeta(ch=channel, lang=lang.value).model_dump_json(), lang)
        client.views_open(trigger_id=request.body["trigger_id"], view=view)

    return Invocation(
        deps,
        team=request.team,
        channel=channel,
        user=user,
        lang=lang,
        answer=answer,
        post=post,
        is_admin=lambda: is_admin(client, user, request.team),
        zone=lambda: zone_for(client, deps, user),
        chat=SlackChat(client, deps),
        announce=announce,
        privately=answer,
        teller=lambda: slack_tellers(deps, client)(request.team),
        open_form=open_form,
        help_text=usage_text,
        channel_name=f"<#{channel}>" if channel else "",
        channel_link=f"<#{channel}>" if channel else "",
        request_key=request.inbox_key,
        direct=channel.startswith("D"),  # a direct message's channel id (Slack's "D…")
    )


def usage_text(lang: Lang) -> str:
    """`/gpu-advise help`: every inline key from the one table of answer fields."""
    return t(
        "slack.usage",
        lang,
        keys=", ".join(f"`{'`/`'.join(f.keys)}`" for f in FIELDS),
        keys_zh=", ".join(f"`{k}`" for f in FIELDS for k in f.keys_zh),
        chinese=chinese_names(),
    )
