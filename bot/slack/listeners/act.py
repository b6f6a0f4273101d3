"""`/gpu-advise act off|notify|stop [grace=4h] [project=P]`: this channel's policy for idle instances (and
`/gpu-advise act` alone: what it is). `stop` is a workspace admin's choice; changing a policy someone else set
needs them or an admin. The answer goes to the channel: everyone there is told what will happen."""

from __future__ import annotations

from bot.actions.policy import PolicyError, read_grace, read_mode, said
from bot.chat import inline
from bot.deps import Deps
from bot.slack.listeners.digest import is_admin
from bot.slack.listeners.rentals import RentalCommandError
from bot.slack.request import SlackRequest
from bot.slack.ui import blocks
from bot.state.actions import Actions
from bot.state.rentals import NAME
from bot.text import Lang, t
from bot.text.format import who

KEYS = {"grace": "grace", "project": "project", "宽限": "grace", "项目": "project"}


def on_act(deps: Deps, request: SlackRequest, args: list[str], lang: Lang) -> None:
    user, channel, team = request.user or "", request.channel or "", request.team
    actions = Actions(deps.store)
    where = f"<#{channel}>"
    if not args:
        text = said(actions.policy(team, channel), where, lang)
        request.respond(response_type="ephemeral", text=text, blocks=blocks.text(text))
        return
    try:
        mode = read_mode(args[0], lang)
        raw = inline.parse_pairs(args[1:], KEYS)[0]
        grace = read_grace(raw.get("grace"), lang)
    except PolicyError as exc:
        raise RentalCommandError(str(exc)) from None
    project = raw.get("project", "")
    if project and not NAME.fullmatch(project):
        raise RentalCommandError(f"`project`: {t('error.rental.bad_name', lang, name=project)}")
    current = actions.policy(team, channel, project)
    mine = current.set_by is None or current.set_by == user or current.project != project
    admin = (mode == "stop" or not mine) and is_admin(request.client, user, team)
    if mode == "stop" and not admin:
        raise RentalCommandError(t("action.stop_admins_only", lang))
    if not mine and not admin:
        raise RentalCommandError(t("action.not_yours", lang, who=who(current.set_by, lang)))
    actions.set_policy(team, channel, mode, grace, project=project, by=user, now=deps.now())
    text = f"<@{user}>: " + said(actions.policy(team, channel, project), where, lang)
    request.respond(response_type="in_channel", text=text, blocks=blocks.text(text))
