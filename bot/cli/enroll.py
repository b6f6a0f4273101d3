"""`gpu-advise enroll-token`: a token GPU boxes enroll themselves with (`gpu-advise agent --enroll TOKEN`).

Printed once; only its hash is kept. The boxes it enrolls go to --channel, owned by --owner, billed to
--project; it works until --expires and for --uses enrollments.
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from typing import Annotated

import typer

from bot.cli.common import LangOpt, fail, load_settings
from bot.cli.rentals import OWNER_HELP, JsonOpt, TeamOpt, checked_channel, checked_owner, chosen_team, open_rentals
from bot.fields.spans import SpanError, parse_span
from bot.text import t

EXPIRES_MIN, EXPIRES_MAX = timedelta(minutes=1), timedelta(days=365)


def enroll_token(
    channel: Annotated[str, typer.Option("--channel", help="The channel the boxes' reminders go to.")],
    owner: Annotated[str, typer.Option("--owner", help=OWNER_HELP)],
    project: Annotated[str | None, typer.Option("--project", help="The project they are billed to.")] = None,
    expires: Annotated[
        str, typer.Option("--expires", help="How long the token works: 30m, 12h, 7d (up to 365d).")
    ] = "7d",
    uses: Annotated[
        int, typer.Option("--uses", min=1, max=10_000, metavar="N", help="How many boxes may enroll with it.")
    ] = 20,
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print an enrollment token once, for `gpu-advise agent --enroll` on each GPU box."""
    from bot.state.enrollment import Enrollments, Grant, agent_command
    from bot.state.rentals import NAME

    settings = load_settings(lang=lang)
    try:
        span = parse_span(expires, EXPIRES_MIN, EXPIRES_MAX)
    except SpanError as exc:
        raise fail(f"--expires: {t(f'error.span.{exc.code}', settings.files.lang, **exc.params)}") from None
    if project is not None and not NAME.fullmatch(project):
        raise fail(f"--project: {t('error.rental.bad_name', settings.files.lang, name=project)}")
    team = chosen_team(settings, team)
    channel = checked_channel(settings, team, channel)  # its boxes' digests go there: one that is none never arrives
    owner = checked_owner(settings, team, owner)
    store = open_rentals(settings).store
    now = store.now()
    grant = Grant(team, channel, owner, project, uses, now + span)
    token = Enrollments(store).issue(grant, created_by="terminal", now=now)
    if as_json:
        out = {"token": token, "expires_at": grant.expires_at.isoformat(), "uses": uses}
        sys.stdout.write(json.dumps(out) + "\n")
        return
    url = (settings.serve.public_url or "https://YOUR-BOT").rstrip("/")
    sys.stdout.write(
        t(
            "cli.enroll_token",
            settings.files.lang,
            token=token,
            uses=uses,
            expires=grant.expires_at.isoformat(timespec="minutes"),
            command=agent_command(url, token),
        )
        + "\n"
    )
