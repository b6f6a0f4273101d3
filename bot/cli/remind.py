"""`gpu-advise remind --now`: send the daily digest now, once a channel a local day.

Exit 0 when it sent a digest, had nothing to say or had already sent today; 1 when a post failed
(the claim is given back, so a later run can send it).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated
from zoneinfo import ZoneInfo

import typer

from bot.cli.common import LangOpt, fail, load_effective_policy, load_settings, say
from bot.cli.reach import reach
from bot.cli.rentals import JsonOpt, TeamOpt, checked_channel, chosen_team, open_rentals
from bot.text import Lang, t

if TYPE_CHECKING:
    from bot.state.schedules import Schedules


def remind(
    now: Annotated[bool, typer.Option("--now", help="Send the digest now (scheduled digests run in serve).")] = False,
    channel: Annotated[list[str] | None, typer.Option("--channel", help="Only this channel (repeatable).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Send even if today's digest went out.")] = False,
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Send the daily digest: idle instances, storage left behind, spend this month."""
    settings = load_settings(lang=lang)
    if not now:
        raise fail(t("cli.remind_needs_now", settings.files.lang))
    from bot.digest.budget_alerts import check_budgets
    from bot.digest.due import board_links
    from bot.digest.send import send_digests
    from bot.settings.worth import team_worth
    from bot.state.digest_sends import Sends
    from bot.state.schedules import Schedules

    policy = load_effective_policy(settings)
    rentals = open_rentals(settings)
    team = chosen_team(settings, team, rentals)
    if channel:  # as its chat names them ("#C1" as pasted), or refused saying what a channel is
        channel = [checked_channel(settings, team, each) for each in channel]
    outlet, teller = reach(settings, rentals.store, team)
    schedules = Schedules(rentals.store, settings.digest.default_schedule())
    langs = channel_lang(schedules, team, load_settings(terminal=False).files.lang)
    outcomes = send_digests(
        rentals,
        Sends(rentals.store),
        outlet,
        team=team,
        channels=channel,
        now=lambda: datetime.now(UTC),
        rules=policy.idle,
        metering=policy.metering,
        lang=lang or langs,
        zone=lambda ch: ZoneInfo(schedules.of(team, ch).zone),
        force=force,
        all_clear=settings.digest.remind_all_clear,
        pace_s=settings.digest.remind_pace_s,
        board=board_links(rentals.store, settings, team, datetime.now(UTC)),
        worth=team_worth(settings),
    )
    alerts = check_budgets(
        rentals,
        lambda _team: teller,
        datetime.now(UTC),
        ZoneInfo(settings.digest.remind_tz),
        policy.budget.thresholds_pct,
        lambda _team, ch: lang or langs(ch),
    )
    for alert in alerts:
        say(
            t(
                "cli.budget_alerted",
                settings.files.lang,
                project=alert.project,
                pct=f"{alert.threshold_pct:g}",
                channels=", ".join(alert.channels),
            )
        )
    if as_json:
        sys.stdout.write(json.dumps([vars(o) for o in outcomes]) + "\n")
    else:
        if not outcomes:
            sys.stdout.write(t("cli.remind_no_channels", settings.files.lang) + "\n")
        for o in outcomes:
            sys.stdout.write(
                t(f"cli.remind_{o.status}", settings.files.lang, channel=o.channel, items=o.items, error=o.error or "")
                + "\n"
            )
    if any(o.status == "failed" for o in outcomes):
        raise typer.Exit(1)


def channel_lang(schedules: Schedules, team: str, default: Lang | None = None) -> Callable[[str], Lang]:
    """Each channel's own language (its schedule's), else `default`, else the chats' default (GPU_ADVISOR_LANG, as
    serve says things in it): never the terminal's locale, which is the person typing's, not the channel's."""
    fallback = default or load_settings(terminal=False).files.lang
    return lambda channel: Lang(code) if (code := schedules.of(team, channel).lang) else fallback
