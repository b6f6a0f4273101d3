"""`enroll [project=P]`: an enrollment token for the caller's GPU boxes, shown to the caller alone with the agent
command to paste on each box. The boxes it enrolls report to this channel and are the caller's.

A reply that could not be delivered is redone with a new token in place of the first (the request key names it),
so no token that nobody saw keeps working."""

from __future__ import annotations

from datetime import timedelta

from bot.app.invocation import CommandError, Invocation
from bot.chat import inline
from bot.chat.message import plain
from bot.state.enrollment import Enrollments, Grant, agent_command
from bot.state.rentals import NAME
from bot.text import t

EXPIRY = timedelta(days=7)
USES = 20
KEYS = {"project": "project", "项目": "project"}


def enroll(inv: Invocation, args: list[str]) -> None:
    deps, lang = inv.deps, inv.lang
    raw = inline.parse_pairs(args, KEYS)[0] if args else {}
    project = raw.get("project")
    if project is not None and not NAME.fullmatch(project):
        raise CommandError(f"`project`: {t('error.rental.bad_name', lang, name=project)}")
    now = deps.now()
    grant = Grant(inv.team, inv.channel, inv.user, project, USES, now + EXPIRY)
    token = Enrollments(deps.store).issue(grant, created_by=inv.user, now=now, request_key=inv.request_key)
    url = (deps.settings.serve.public_url or "https://YOUR-BOT").rstrip("/")
    text = t(
        "slack.enroll_token",
        lang,
        token=token,
        uses=USES,
        channel=inv.channel_name,
        expires=grant.expires_at.strftime("%Y-%m-%d %H:%M"),
        command=agent_command(url, token),
    )
    if not deps.settings.serve.public_url:
        text += "\n" + t("slack.enroll_no_public_url", lang)
    inv.privately(plain(text, lang))
