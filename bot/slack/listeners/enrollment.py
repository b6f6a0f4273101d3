"""`/gpu-advise enroll [project=P]`: an enrollment token for the caller's GPU boxes, shown to the caller alone
with the agent command to paste on each box. The boxes it enrolls report to this channel and are the caller's.

A reply that could not be delivered is redone with a new token in place of the first (the request key
names it), so no token that nobody saw keeps working."""

from __future__ import annotations

from datetime import timedelta

from bot.chat import inline
from bot.deps import Deps
from bot.slack.listeners.rentals import RentalCommandError
from bot.slack.request import SlackRequest
from bot.slack.ui import blocks
from bot.state.enrollment import Enrollments, Grant, agent_command
from bot.state.rentals import NAME
from bot.text import Lang, t

SLACK_EXPIRY = timedelta(days=7)
SLACK_USES = 20
KEYS = {"project": "project", "项目": "project"}


def on_enroll(deps: Deps, request: SlackRequest, args: list[str], lang: Lang) -> None:
    raw = inline.parse_pairs(args, KEYS)[0] if args else {}
    project = raw.get("project")
    if project is not None and not NAME.fullmatch(project):
        raise RentalCommandError(f"`project`: {t('error.rental.bad_name', lang, name=project)}")
    user, channel, now = request.user or "", request.channel or "", deps.now()
    grant = Grant(request.team, channel, user, project, SLACK_USES, now + SLACK_EXPIRY)
    token = Enrollments(deps.store).issue(grant, created_by=user, now=now, request_key=request.inbox_key)
    url = (deps.settings.public_url or "https://YOUR-BOT").rstrip("/")
    text = t(
        "slack.enroll_token",
        lang,
        token=token,
        uses=SLACK_USES,
        channel=f"<#{channel}>",
        expires=grant.expires_at.strftime("%Y-%m-%d %H:%M"),
        command=agent_command(url, token),
    )
    if not deps.settings.public_url:
        text += "\n" + t("slack.enroll_no_public_url", lang)
    request.respond(response_type="ephemeral", text=text, blocks=blocks.text(text))
