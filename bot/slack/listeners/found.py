"""The digest's "Found, not tracked" buttons: **Claim** (anyone of this workspace: the presser becomes the
owner) and **Not ours** (an admin of this workspace: hidden from digests and lists). The answer replaces the
item in the digest message, in the message's language."""

from __future__ import annotations

from slack_sdk.errors import SlackApiError

from bot.deps import Deps
from bot.slack.ids import Action
from bot.slack.listeners.digest import ephemeral, is_admin, replace_item
from bot.slack.replies import lang_for
from bot.slack.request import SlackRequest
from bot.slack.ui.blocks import context
from bot.slack.ui.digest import message_lang
from bot.state.discovered import Discovered
from bot.text import t


def _member(request: SlackRequest, user: str) -> bool:
    """Is `user` of this workspace (not a guest from another one in a shared channel)?"""
    try:
        found = request.client.users_info(user=user).get("user") or {}
    except SlackApiError:
        return False
    return found.get("team_id") == request.team


def on_found_button(deps: Deps, request: SlackRequest) -> None:
    """Claim or Not ours: check who may, do it, and put the answer where the item was."""
    user, team = request.user or "", request.team
    action, name = Action(request.action["action_id"]), str(request.action.get("value", ""))
    kind = str(request.action.get("block_id", "act:fi:")).split(":")[1][-1:] or "i"  # act:fi:NAME or act:fs:NAME
    lang = lang_for(request.client, deps, user)
    posted_in = message_lang(request.body.get("message") or {}) or lang
    found = Discovered(deps.store)
    if action is Action.CLAIM:
        if not _member(request, user):
            ephemeral(request, user, t("digest.found_not_member", lang))
            return
        owner = found.claim(team, kind, name, user)
        if owner:
            ephemeral(request, user, t("digest.found_already", lang, name=name, owner=f"<@{owner}>"))
            return
        if owner == "":
            ephemeral(request, user, t("digest.gone", lang, name=name))
            return
        said = t("digest.done.claimed", posted_in, name=name, user=f"<@{user}>")
    else:
        if not is_admin(request.client, user, team):
            ephemeral(request, user, t("digest.found_admins_only", lang, name=name))
            return
        if not found.hide(team, kind, name, user):
            ephemeral(request, user, t("digest.gone", lang, name=name))
            return
        said = t("digest.done.not_ours", posted_in, name=name, user=f"<@{user}>")
    replace_item(request, f"f{kind}", name, context(said), posted_in)
