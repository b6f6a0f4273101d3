"""The chat port on Slack: neutral messages rendered as Block Kit (the profile's intents with their own templates,
anything else generically) and sent with slack_sdk's WebClient."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.chat import profile_messages as says
from bot.chat.message import Message, Section
from bot.chat.port import Actor, ChatError, Place, Platform, Posted, Say
from bot.deps import Deps
from bot.slack.keyed_posts import keyed, posted_in_thread
from bot.slack.replies import lang_for, post_or_dm
from bot.slack.ui import blocks, templating
from bot.slack.ui.digest import message_blocks
from bot.text import Lang


def render(message: Message) -> list[dict[str, Any]]:
    """Block Kit for a neutral message: the profile's own templates for its intents, else section by section."""
    intent, lang = message.intent, message.lang
    if isinstance(intent, says.Root):
        return blocks.root(intent.user, lang, intent.note)
    if isinstance(intent, says.Question):
        return blocks.question(intent.convo_id, intent.step, lang)
    if isinstance(intent, says.Answered):
        return blocks.answered(intent.step, intent.answer, intent.user, lang)
    if isinstance(intent, says.Recommendation):
        return blocks.recommendation(intent.advice, intent.convo_id, intent.policy, lang)
    if message.sections == (Section(message.text),) and not (message.title or message.buttons or message.context):
        return []  # a plain line: Slack shows the text itself
    if any(section.item is not None for section in message.sections):  # a digest composed again: its buttons
        return message_blocks(message)
    return generic(message)


def generic(message: Message) -> list[dict[str, Any]]:
    """A message no template is made for: title, sections, buttons, context (ending in a divider)."""
    return templating.message(
        "generic.json.j2",
        title=message.title,
        sections=message.sections,
        buttons=message.buttons,
        context=message.context,
    )


class SlackChat:
    platform = Platform.SLACK
    # a post Slack has taken may show in conversations.replies only seconds later (issue 53.17 saw 15 s), and a
    # send outlives its process by at most the client's timeout (slack_sdk's WebClient: 30 s): twice that
    settles_in: timedelta | None = timedelta(seconds=60)

    def __init__(self, client: WebClient, deps: Deps) -> None:
        self.client, self.deps = client, deps

    def post(
        self, place: Place, say: Say, lang: Lang, *, fallback_user: str | None = None, key: str | None = None
    ) -> Posted:
        message = say(lang)
        if fallback_user is not None:
            posted = post_or_dm(
                self.client,
                channel=place.channel,
                user=fallback_user,
                blocks=render(message),
                text=message.text,
                lang=lang,
                thread_ts=place.thread,
            )
            where = Place(place.platform, place.team, posted.channel, place.thread)
            return Posted(where, posted.ts, posted.moved_because)
        # Slack's errors (SlackApiError) go to the app's error handler as they are
        reply = self.client.chat_postMessage(
            channel=place.channel,
            thread_ts=place.thread,
            blocks=render(message) or None,
            text=message.text,
            metadata=keyed(key) if key else None,
        )
        return Posted(place, str(reply["ts"]))

    def find(self, place: Place, key: str) -> Posted | None:
        ts = posted_in_thread(self.client, place.channel, place.thread, key) if place.thread else None
        return Posted(place, ts) if ts else None

    def update(self, posted: Posted, say: Say, lang: Lang) -> None:
        message = say(lang)
        self.client.chat_update(
            channel=posted.place.channel, ts=posted.id, blocks=render(message) or None, text=message.text
        )

    def tell(self, place: Place, user: str, text: str) -> None:
        self.client.chat_postEphemeral(channel=place.channel, user=user, text=text, thread_ts=place.thread)

    def direct(self, actor: Actor, say: Say, lang: Lang, *, key: str | None = None) -> Posted:
        """A message to the user's direct chat with the app (chat.postMessage to a user id opens it)."""
        message = say(lang)
        try:
            reply = self.client.chat_postMessage(channel=actor.user, blocks=render(message) or None, text=message.text)
        except SlackApiError as exc:
            raise ChatError(str(exc.response.get("error") or "slack_error")) from exc
        dm = str(reply.get("channel") or actor.user)
        return Posted(Place(Platform.SLACK, actor.team, dm, str(reply["ts"])), str(reply["ts"]))

    def direct_chat(self, actor: Actor) -> str:
        """conversations.open: the DM's id (D…)."""
        return str(self.client.conversations_open(users=actor.user)["channel"]["id"])

    def user_lang(self, actor: Actor) -> Lang:
        return lang_for(self.client, self.deps, actor.user)
