"""Events: replies typed in a profile's thread, and App Home opened."""

from __future__ import annotations

from bot.deps import Deps
from bot.slack import conversation
from bot.slack.listeners import captures
from bot.slack.listeners.home_rentals import home_chart, rentals_text
from bot.slack.replies import lang_for
from bot.slack.request import SlackRequest
from bot.slack.ui import blocks
from bot.text import Lang, t


def is_upload(request: SlackRequest) -> bool:
    """A file shared into a thread: a capture to download and read, which may take a while."""
    return request.event.get("subtype") == "file_share" and bool(request.event.get("files"))


def on_message(deps: Deps, request: SlackRequest) -> None:
    """A message in a profile's thread: the starter's reply answers the open question; others are
    ignored, and the starter is told once (ephemerally) that someone else replied."""
    event = request.event
    files = event.get("files") if event.get("subtype") == "file_share" else None
    if (event.get("subtype") and not files) or event.get("bot_id") or not event.get("user"):
        return  # edits, joins, bots (our own messages are dropped by bolt already)
    thread_ts, channel, user = event.get("thread_ts"), event.get("channel", ""), event["user"]
    if not thread_ts or thread_ts == event.get("ts"):
        return
    found = deps.conversations.by_thread(request.team, channel, thread_ts)
    if found is None:
        return
    with deps.store.lock(found.id):
        convo = deps.conversations.get(found.id) or found
        if user != convo.user:
            if not convo.warned_others and convo.status == "active":
                request.client.chat_postEphemeral(
                    channel=channel,
                    user=convo.user,
                    thread_ts=thread_ts,
                    text=t("slack.not_yours", Lang(convo.lang), other=user),
                )
                convo.warned_others = True
                deps.conversations.save(convo)
            return
        if not conversation.admit(deps, request.client, convo, channel, user):
            return  # asked once: an expired profile's notice is posted once per message
        if files:
            captures.on_upload(deps, request, convo, files)
        else:
            conversation.typed_answer(deps, request.client, convo, event.get("text") or "", user, request.inbox_key)


def on_uninstalled(deps: Deps, request: SlackRequest) -> None:
    """app_uninstalled, or tokens_revoked naming the bot's token: the workspace's stored tokens go (OAuth
    installs; with one configured bot token there is nothing stored to forget)."""
    event = request.event
    if event.get("type") == "tokens_revoked" and not (event.get("tokens") or {}).get("bot"):
        return  # only user tokens, which this app never asks for
    if deps.workspaces is not None and request.team:
        deps.workspaces.forget(request.team)


def on_home(deps: Deps, request: SlackRequest) -> None:
    """App Home: the user's recent recommendations, a New profile button, what they rent (spend this month,
    budgets they set and their forecast), and the price sources' status."""
    event = request.event
    if event.get("tab") != "home":
        return
    user = event["user"]
    lang = lang_for(request.client, deps, user)
    view = blocks.home(
        deps.users.recent_recommendations(request.team, user),
        deps.prices.status(),
        lang,
        rentals=rentals_text(deps, request.team, user, lang, deps.now()),
        chart=home_chart(deps, request.team, user, lang),
    )
    request.client.views_publish(user_id=user, view=view)
