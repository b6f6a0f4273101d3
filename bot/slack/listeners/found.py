"""The digest's "Found, not tracked" buttons in Slack (the core's bot/app/found.py): the answer replaces the item in
the digest message, in the message's language; a refusal is said to the presser alone."""

from __future__ import annotations

from bot.app.found import Pressed, answer
from bot.deps import Deps
from bot.slack.ids import Action
from bot.slack.listeners.digest import ephemeral, is_admin, member_of, replace_item
from bot.slack.replies import lang_for
from bot.slack.request import SlackRequest
from bot.slack.ui.blocks import context
from bot.slack.ui.digest import message_lang


def on_found_button(deps: Deps, request: SlackRequest) -> None:
    """Claim or Not ours: check who may, do it, and put the answer where the item was."""
    user, team = request.user or "", request.team
    action, name = Action(request.action["action_id"]), str(request.action.get("value", ""))
    kind = str(request.action.get("block_id", "act:fi:")).split(":")[1][-1:] or "i"  # act:fi:NAME or act:fs:NAME
    lang = lang_for(request.client, deps, user)
    message = request.body.get("message") or {}
    posted_in = message_lang(message) or lang
    ts = str(message.get("ts") or "") or None
    press = Pressed(action, team, request.channel or "", kind, name, user, ts, posted_in)
    member = action is not Action.CLAIM or member_of(request.client, user, team) is not None
    outcome = answer(deps, press, lang, member=member, is_admin=lambda: is_admin(request.client, user, team))
    if outcome.refused is not None:
        ephemeral(request, user, outcome.refused)
    elif outcome.done is not None:
        replace_item(request, f"f{kind}", name, context(outcome.done), posted_in)
