"""Thin bolt listeners: acknowledge, hand the work to bot/conversation.py or bot/commands.py, report errors.

Slow work runs in bolt's lazy listeners, so every acknowledgement goes out at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from slack_bolt import Ack, App, BoltResponse
from slack_sdk import WebClient

from bot import commands, conversation, slack_views
from bot.deps import Deps
from bot.forms import FormMeta, form_answers, form_errors
from bot.ids import COMMAND, Action, Callback
from bot.slack_io import lang_for, report
from bot.slack_views import ButtonValue
from bot.store import Conversation
from bot.texts import t
from pricing.status import source_status
from rules.messages import Lang


def team_of(body: dict[str, Any]) -> str:
    team = body.get("team_id") or (body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id")
    return str(team or "")


def register(app: App, deps: Deps) -> None:
    @contextmanager
    def reported(client: WebClient | None, channel: str | None, user: str | None) -> Iterator[None]:
        """The one place where lazy work's errors are caught: logged with an id the user is told."""
        try:
            yield
        except Exception as exc:
            report(exc, client, channel=channel, user=user, lang=deps.settings.lang)

    def ack_now(ack: Ack) -> None:
        ack()

    @app.middleware
    def skip_retried_events(body: dict[str, Any], next: Callable[[], None]) -> BoltResponse | None:
        event_id = body.get("event_id")
        if body.get("type") == "event_callback" and event_id and not deps.store.first_time_seen(str(event_id)):
            return BoltResponse(status=200, body="")
        next()
        return None

    def on_command(body: dict[str, Any], client: WebClient, respond: Callable[..., Any]) -> None:
        with reported(client, body.get("channel_id"), body.get("user_id")):
            commands.handle(client, deps, body, respond)

    app.command(COMMAND)(ack=ack_now, lazy=[on_command])

    def active(client: WebClient, convo: Conversation, channel: str, user: str) -> bool:
        """Is `convo` still open for answers from `user`? If not, say why (ephemerally or in the thread)."""
        lang = Lang(convo.lang)
        if user != convo.user:
            client.chat_postEphemeral(channel=channel, user=user, text=t("slack.only_starter", lang, user=convo.user))
            return False
        if convo.status == "active" and deps.store.is_expired(convo, deps.conversation_ttl):
            convo.status = "expired"
            deps.store.save(convo)
        if convo.status == "expired":
            client.chat_postMessage(channel=convo.channel, thread_ts=convo.thread_ts,
                                    text=t("slack.expired", lang, hours=deps.settings.conversation_ttl_hours))
            return False
        return convo.status == "active"

    def on_button(body: dict[str, Any], client: WebClient) -> None:
        user, channel = body["user"]["id"], (body.get("channel") or {}).get("id")
        with reported(client, channel, user):
            value = ButtonValue.model_validate_json(body["actions"][0]["value"])
            with deps.store.lock(value.c):
                convo = deps.store.get(value.c)
                if convo is None or not active(client, convo, channel or convo.channel, user):
                    return
                conversation.take_answer(client, deps, convo, value.k, value.v, user)

    app.action(re.compile(rf"^{Action.ANSWER}:\d+$"))(ack=ack_now, lazy=[on_button])
    app.action(Action.SKIP.value)(ack=ack_now, lazy=[on_button])

    def on_message(body: dict[str, Any], event: dict[str, Any], client: WebClient) -> None:
        if event.get("subtype") or event.get("bot_id") or not event.get("user"):
            return  # edits, joins, bots (our own messages are dropped by bolt already)
        thread_ts, channel, user = event.get("thread_ts"), event.get("channel", ""), event["user"]
        if not thread_ts or thread_ts == event.get("ts"):
            return
        with reported(client, channel, user):
            convo = deps.store.by_thread(team_of(body), channel, thread_ts)
            if convo is None:
                return
            with deps.store.lock(convo.id):
                convo = deps.store.get(convo.id) or convo
                if user != convo.user:
                    if not convo.warned_others and convo.status == "active":
                        client.chat_postEphemeral(channel=channel, user=convo.user, thread_ts=thread_ts,
                                                  text=t("slack.not_yours", Lang(convo.lang), other=user))
                        convo.warned_others = True
                        deps.store.save(convo)
                    return
                if active(client, convo, channel, user):
                    conversation.typed_answer(client, deps, convo, event.get("text") or "", user)

    app.event("message")(ack=ack_now, lazy=[on_message])

    def on_change(body: dict[str, Any], client: WebClient) -> None:
        user, channel = body["user"]["id"], (body.get("channel") or {}).get("id")
        with reported(client, channel, user):
            convo = deps.store.get(ButtonValue.model_validate_json(body["actions"][0]["value"]).c)
            if convo is None:
                return
            lang = Lang(convo.lang)
            meta = FormMeta(c=convo.id, ch=convo.channel, lang=lang.value).model_dump_json()
            client.views_open(trigger_id=body["trigger_id"], view=slack_views.form(convo.answers, meta, lang))

    app.action(Action.CHANGE.value)(ack=ack_now, lazy=[on_change])

    def on_restart(body: dict[str, Any], client: WebClient) -> None:
        user, channel = body["user"]["id"], (body.get("channel") or {}).get("id")
        with reported(client, channel, user):
            lang = lang_for(client, deps, user)
            conversation.start(client, deps, team=team_of(body), channel=channel or user, user=user, lang=lang)

    app.action(Action.RESTART.value)(ack=ack_now, lazy=[on_restart])

    def on_new_profile(body: dict[str, Any], client: WebClient) -> None:
        user = body["user"]["id"]
        with reported(client, None, user):
            dm = client.conversations_open(users=user)["channel"]["id"]
            conversation.start(client, deps, team=team_of(body), channel=dm, user=user,
                               lang=lang_for(client, deps, user))

    app.action(Action.NEW_PROFILE.value)(ack=ack_now, lazy=[on_new_profile])

    def check_form(ack: Ack, view: dict[str, Any]) -> None:
        meta = FormMeta.model_validate_json(view.get("private_metadata") or "{}")
        errors = form_errors(view, Lang(meta.lang))
        if errors:
            ack(response_action="errors", errors=errors)
        else:
            ack()

    def on_form(body: dict[str, Any], view: dict[str, Any], client: WebClient) -> None:
        user = body["user"]["id"]
        meta = FormMeta.model_validate_json(view.get("private_metadata") or "{}")
        with reported(client, meta.ch, user):
            if form_errors(view, Lang(meta.lang)):
                return  # the acknowledgement already showed them
            answers = form_answers(view)
            convo = deps.store.get(meta.c) if meta.c else None
            if convo is None:
                convo = deps.store.create(team=team_of(body), channel=meta.ch or user, user=user, lang=meta.lang)
            convo.answers = answers
            conversation.finish(client, deps, convo)

    app.view(Callback.PROFILE_FORM.value)(ack=check_form, lazy=[on_form])

    def on_home(event: dict[str, Any], client: WebClient) -> None:
        if event.get("tab") != "home":
            return
        user = event["user"]
        with reported(client, None, user):
            lang = lang_for(client, deps, user)
            db = deps.price_db()
            try:
                states = source_status(db, deps.sources, deps.now())
            finally:
                db.close()
            client.views_publish(user_id=user, view=slack_views.home(deps.store.recent_recommendations(user),
                                                                     states, lang))

    app.event("app_home_opened")(ack=ack_now, lazy=[on_home])

    @app.error
    def on_error(error: Exception, body: dict[str, Any], client: WebClient) -> None:
        user = body.get("user_id") or (body.get("user") or {}).get("id")
        channel = body.get("channel_id") or (body.get("channel") or {}).get("id")
        report(error, client, channel=channel, user=user, lang=deps.settings.lang)
