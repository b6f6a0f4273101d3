"""Thin bolt listeners: keep the request, acknowledge, hand the work to bot/conversation.py or
bot/commands.py in a lazy listener, report errors.

Every request is written to the store's inbox before it is acknowledged and marked done when its
work ends, so a crash between the two loses nothing: replay_pending() does the work on the next start.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from slack_bolt import Ack, App, BoltContext, BoltResponse
from slack_bolt.context.respond import Respond
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

log = logging.getLogger(__name__)

# Work older than this is not redone after a restart (response URLs last 30 minutes).
REPLAY_WINDOW = timedelta(minutes=30)
INBOX_KEPT = timedelta(days=7)  # finished requests are kept this long, then pruned at start-up
ANSWER_ACTION = re.compile(rf"^{Action.ANSWER}:\d+$")


def team_of(body: dict[str, Any]) -> str:
    team = body.get("team_id") or (body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id")
    return str(team or "")


def kind_of(body: dict[str, Any]) -> str:
    if body.get("type") == "event_callback":
        return "event"
    if "command" in body:
        return "command"
    return str(body.get("type") or "unknown")


def inbox_key(body: dict[str, Any]) -> str:
    kind = kind_of(body)
    if kind == "event" and body.get("event_id"):
        return f"event:{body['event_id']}"  # Slack's retries carry the same id
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    return f"{kind}:{digest[:32]}"


def register(app: App, deps: Deps) -> Callable[[WebClient], int]:
    """Register every listener; returns replay_pending(client), to run once at start-up."""

    @contextmanager
    def reported(context: dict[str, Any], client: WebClient | None, channel: str | None,
                 user: str | None) -> Iterator[None]:
        """The one place where lazy work ends: errors logged with an id the user is told; the inbox item done."""
        try:
            yield
        except Exception as exc:
            lang = lang_for(client, deps, user) if client is not None and user else deps.settings.lang
            report(exc, client, channel=channel, user=user, lang=lang)
        finally:
            if context.get("inbox_key"):
                deps.store.done(context["inbox_key"])

    def ack_now(ack: Ack) -> None:
        ack()

    @app.middleware
    def keep_in_inbox(body: dict[str, Any], context: BoltContext, next: Callable[[], None]) -> BoltResponse | None:
        if body.get("type") in ("url_verification", "ssl_check") or not body:
            next()
            return None
        key = inbox_key(body)
        if not deps.store.enqueue(key, kind_of(body), body) and kind_of(body) == "event":
            return BoltResponse(status=200, body="")  # a retried event: already kept, processed once
        context["inbox_key"] = key
        next()
        return None

    def on_command(body: dict[str, Any], client: WebClient, respond: Respond, context: BoltContext) -> None:
        with reported(context, client, body.get("channel_id"), body.get("user_id")):
            commands.handle(client, deps, body, respond)

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

    def on_button(body: dict[str, Any], client: WebClient, context: BoltContext) -> None:
        user, channel = body["user"]["id"], (body.get("channel") or {}).get("id")
        with reported(context, client, channel, user):
            value = ButtonValue.model_validate_json(body["actions"][0]["value"])
            with deps.store.lock(value.c):
                convo = deps.store.get(value.c)
                if convo is None or not active(client, convo, channel or convo.channel, user):
                    return
                conversation.take_answer(client, deps, convo, value.k, value.v, user, context.get("inbox_key"))

    def on_message(body: dict[str, Any], client: WebClient, context: BoltContext) -> None:
        event = body["event"]
        if event.get("subtype") or event.get("bot_id") or not event.get("user"):
            deps.store.done(context.get("inbox_key") or "")
            return  # edits, joins, bots (our own messages are dropped by bolt already)
        thread_ts, channel, user = event.get("thread_ts"), event.get("channel", ""), event["user"]
        with reported(context, client, channel, user):
            if not thread_ts or thread_ts == event.get("ts"):
                return
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
                    conversation.typed_answer(client, deps, convo, event.get("text") or "", user,
                                              context.get("inbox_key"))

    def on_change(body: dict[str, Any], client: WebClient, context: BoltContext) -> None:
        user, channel = body["user"]["id"], (body.get("channel") or {}).get("id")
        with reported(context, client, channel, user):
            convo = deps.store.get(ButtonValue.model_validate_json(body["actions"][0]["value"]).c)
            if convo is None:
                return
            lang = Lang(convo.lang)
            meta = FormMeta(c=convo.id, ch=convo.channel, lang=lang.value).model_dump_json()
            client.views_open(trigger_id=body["trigger_id"], view=slack_views.form(convo.answers, meta, lang))

    def on_restart(body: dict[str, Any], client: WebClient, context: BoltContext) -> None:
        user, channel = body["user"]["id"], (body.get("channel") or {}).get("id")
        with reported(context, client, channel, user):
            lang = lang_for(client, deps, user)
            conversation.start(client, deps, team=team_of(body), channel=channel or user, user=user, lang=lang)

    def on_new_profile(body: dict[str, Any], client: WebClient, context: BoltContext) -> None:
        user = body["user"]["id"]
        with reported(context, client, None, user):
            dm = client.conversations_open(users=user)["channel"]["id"]
            conversation.start(client, deps, team=team_of(body), channel=dm, user=user,
                               lang=lang_for(client, deps, user))

    def check_form(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
        view = body["view"]
        meta = FormMeta.model_validate_json(view.get("private_metadata") or "{}")
        errors = form_errors(view, Lang(meta.lang))
        if errors:
            deps.store.done(context.get("inbox_key") or "")  # nothing to do until a corrected submission
            ack(response_action="errors", errors=errors)
        else:
            ack()

    def on_form(body: dict[str, Any], client: WebClient, context: BoltContext) -> None:
        user, view = body["user"]["id"], body["view"]
        meta = FormMeta.model_validate_json(view.get("private_metadata") or "{}")
        with reported(context, client, meta.ch, user):
            if form_errors(view, Lang(meta.lang)):
                return  # the acknowledgement already showed them
            convo = deps.store.get(meta.c) if meta.c else None
            if convo is None:
                convo = deps.store.create(team=team_of(body), channel=meta.ch or user, user=user, lang=meta.lang)
            convo.answers = form_answers(view)
            conversation.finish(client, deps, convo)

    def on_home(body: dict[str, Any], client: WebClient, context: BoltContext) -> None:
        event = body["event"]
        user = event["user"]
        with reported(context, client, None, user):
            if event.get("tab") != "home":
                return
            lang = lang_for(client, deps, user)
            db = deps.price_db()
            try:
                states = source_status(db, deps.sources, deps.now())
            finally:
                db.close()
            client.views_publish(user_id=user, view=slack_views.home(deps.store.recent_recommendations(user),
                                                                     states, lang))

    app.command(COMMAND)(ack=ack_now, lazy=[on_command])
    app.action(ANSWER_ACTION)(ack=ack_now, lazy=[on_button])
    app.action(Action.SKIP.value)(ack=ack_now, lazy=[on_button])
    app.action(Action.CHANGE.value)(ack=ack_now, lazy=[on_change])
    app.action(Action.RESTART.value)(ack=ack_now, lazy=[on_restart])
    app.action(Action.NEW_PROFILE.value)(ack=ack_now, lazy=[on_new_profile])
    app.view(Callback.PROFILE_FORM.value)(ack=check_form, lazy=[on_form])
    app.event("message")(ack=ack_now, lazy=[on_message])
    app.event("app_home_opened")(ack=ack_now, lazy=[on_home])

    @app.error
    def on_error(error: Exception, body: dict[str, Any], client: WebClient) -> None:
        user = body.get("user_id") or (body.get("user") or {}).get("id")
        channel = body.get("channel_id") or (body.get("channel") or {}).get("id")
        report(error, client, channel=channel, user=user, lang=deps.settings.lang)

    actions: dict[str, Callable[..., None]] = {Action.SKIP: on_button, Action.CHANGE: on_change,
                                               Action.RESTART: on_restart, Action.NEW_PROFILE: on_new_profile}

    def handler_for(kind: str, body: dict[str, Any]) -> Callable[..., None] | None:
        if kind == "command":
            return on_command
        if kind == "event":
            return {"message": on_message, "app_home_opened": on_home}.get(body.get("event", {}).get("type"))
        if kind == "view_submission":
            return on_form
        if kind == "block_actions":
            action_id = str((body.get("actions") or [{}])[0].get("action_id", ""))
            return on_button if ANSWER_ACTION.match(action_id) else actions.get(action_id)
        return None

    def replay_pending(client: WebClient) -> int:
        """Do the work of requests acknowledged before a crash or restart. Returns how many were redone."""
        deps.store.prune(INBOX_KEPT)
        redone = 0
        for key, kind, body in deps.store.pending(REPLAY_WINDOW):
            handler = handler_for(kind, body)
            if handler is None:
                deps.store.done(key)
                continue
            log.info("redoing %s acknowledged before the last stop", key)
            context = BoltContext({"inbox_key": key})
            kwargs: dict[str, Any] = {"body": body, "client": client, "context": context}
            if kind == "command":
                kwargs["respond"] = Respond(response_url=body.get("response_url"))
            handler(**kwargs)
            redone += 1
        return redone

    return replay_pending
