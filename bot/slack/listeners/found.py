"""The digest's "Found, not tracked" buttons: **Claim** (anyone of this workspace: the presser becomes the
owner) and **Not ours** (an admin of this workspace: hidden from digests and lists). The answer replaces the
item in the digest message, in the message's language."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.actions.warn import STOPPABLE
from bot.deps import Deps
from bot.slack.ids import Action
from bot.slack.listeners.digest import ephemeral, is_admin, member_of, replace_item
from bot.slack.replies import lang_for
from bot.slack.request import SlackRequest
from bot.slack.ui.blocks import context
from bot.slack.ui.digest import message_lang, when
from bot.state.actions import Actions
from bot.state.discovered import Discovered
from bot.state.rentals import Rentals
from bot.state.schedules import Schedules
from bot.text import t
from rules.idle import Activity, judge


def _warn_if_idle(deps: Deps, request: SlackRequest, kind: str, name: str) -> datetime | None:
    """In a channel that stops idle instances, a claimed instance idle now is warned at once (deadline: the
    press plus the grace); the deadline, or None."""
    rentals = Rentals(deps.store)
    inst = rentals.instance(request.team, name)
    if inst is None or inst.source not in STOPPABLE:
        return None
    actions = Actions(deps.store)
    policy = actions.policy(request.team, inst.channel, inst.project)
    now = deps.now()
    samples = rentals.recent([inst.id], now - timedelta(minutes=deps.policy.idle.window_minutes))[inst.id]
    idle = judge(samples, started=inst.launched_at or inst.started_at, now=now, rules=deps.policy.idle)
    if policy.mode != "stop" or idle is not Activity.IDLE:
        return None
    ts = str((request.body.get("message") or {}).get("ts") or "") or None
    lang = message_lang(request.body.get("message") or {})
    made = actions.warn(request.team, inst.id, inst.channel, now, now + policy.grace, ts, lang.value if lang else None)
    return made.deadline if made else None


def on_found_button(deps: Deps, request: SlackRequest) -> None:
    """Claim or Not ours: check who may, do it, and put the answer where the item was."""
    user, team = request.user or "", request.team
    action, name = Action(request.action["action_id"]), str(request.action.get("value", ""))
    kind = str(request.action.get("block_id", "act:fi:")).split(":")[1][-1:] or "i"  # act:fi:NAME or act:fs:NAME
    lang = lang_for(request.client, deps, user)
    posted_in = message_lang(request.body.get("message") or {}) or lang
    found = Discovered(deps.store)
    if action is Action.CLAIM:
        if member_of(request.client, user, team) is None:
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
        warned = _warn_if_idle(deps, request, kind, name) if kind == "i" else None
        if warned is not None:
            schedules = Schedules(deps.store, deps.settings.default_schedule())
            zone = ZoneInfo(schedules.of(team, request.channel or "").zone)
            said += " " + t("digest.stop_warning", posted_in, at=when(warned, zone))
    else:
        if not is_admin(request.client, user, team):
            ephemeral(request, user, t("digest.found_admins_only", lang, name=name))
            return
        if not found.hide(team, kind, name, user):
            ephemeral(request, user, t("digest.gone", lang, name=name))
            return
        said = t("digest.done.not_ours", posted_in, name=name, user=f"<@{user}>")
    replace_item(request, f"f{kind}", name, context(said), posted_in)
