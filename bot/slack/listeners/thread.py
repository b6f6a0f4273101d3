"""Events: replies typed in a profile's thread, and App Home opened."""

from __future__ import annotations

from bot.app.capture import SentFile
from bot.app.thread import ThreadMessage, on_thread_message
from bot.deps import Deps
from bot.slack.capture_files import fetch
from bot.slack.chat import SlackChat
from bot.slack.listeners.home_rentals import home_chart, rentals_text
from bot.slack.markup import from_slack
from bot.slack.replies import lang_for
from bot.slack.request import SlackRequest
from bot.slack.teller import slack_tellers
from bot.slack.ui import blocks


def is_upload(request: SlackRequest) -> bool:
    """A file shared into a thread: a capture to download and read, which may take a while."""
    return request.event.get("subtype") == "file_share" and bool(request.event.get("files"))


def on_message(deps: Deps, request: SlackRequest) -> None:
    """A message in a profile's thread, given to the core (bot/app/thread.py): the starter's reply answers the
    open question (a file they share is a capture); others are left alone, the starter told once."""
    event, client = request.event, request.client
    files = event.get("files") if event.get("subtype") == "file_share" else None
    if (event.get("subtype") and not files) or event.get("bot_id") or not event.get("user"):
        return  # edits, joins, bots (our own messages are dropped by bolt already)
    thread_ts = event.get("thread_ts")
    if not thread_ts or thread_ts == event.get("ts"):
        return
    sent = None
    if files:  # the first file shared: fetched with files.info and its private download
        file_id = str(files[0]["id"])
        name = str(files[0].get("name") or file_id)
        sent = SentFile(name, lambda max_bytes, deadline_s: fetch(client, file_id, max_bytes, deadline_s))
    message = ThreadMessage(
        request.team,
        str(event.get("channel", "")),
        str(thread_ts),
        str(event["user"]),
        from_slack(str(event.get("text") or "")),
        sent,
        request.inbox_key,
    )
    on_thread_message(deps, SlackChat(client, deps), slack_tellers(deps, client)(request.team), message)


def on_uninstalled(deps: Deps, request: SlackRequest) -> None:
    """app_uninstalled, or tokens_revoked naming the bot's token: the workspace's stored tokens go (OAuth
    installs; with one configured bot token there is nothing stored to forget)."""
    event = request.event
    if event.get("type") == "tokens_revoked" and not (event.get("tokens") or {}).get("bot"):
        return  # only user tokens, which this app never asks for
    if deps.installs is not None and request.team:
        deps.installs.forget(request.team)


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
