"""`gpu-advise idle [--channel C] [--owner U] [--team T] [--json]`: each channel's digest as it stands now
(bot/digest/now.py), read in the terminal rather than sent: what is idle, holding memory without work or without
data, the storage left behind, and where a stop channel's warning was given, its stop time (`--owner`: one person's
items, in every channel, as chat's `idle mine`). It warns nobody and is not the day's digest (`gpu-advise remind
--now` sends that)."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, replace
from datetime import datetime
from typing import Annotated, Any

import typer

from bot.cli.common import LangOpt, load_effective_policy, load_settings
from bot.cli.rentals import JsonOpt, TeamOpt, checked_channel, checked_owner, chosen_team, open_rentals
from rules.digest import Digest


def idle(
    channel: Annotated[
        list[str] | None, typer.Option("--channel", help="Only this channel's items (repeatable).")
    ] = None,
    owner: Annotated[
        str | None, typer.Option("--owner", help="Only this person's items, in every channel (chat's `idle mine`).")
    ] = None,
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """What is idle now, each channel's as its digest would say it (nothing is sent)."""
    from bot.chat.digest_messages import (
        digest_header,
        digest_notes,
        found_line,
        instance_line,
        lifecycle_line,
        storage_line,
    )
    from bot.digest.now import digests_now, has_news
    from bot.digest.send import channels_of
    from bot.settings.worth import team_worth
    from bot.state.schedules import Schedules
    from bot.text import t
    from bot.text.spans import plain_text

    settings = load_settings(lang=lang)
    policy = load_effective_policy(settings)
    rentals = open_rentals(settings)
    team = chosen_team(settings, team, rentals)
    wanted = [checked_channel(settings, team, each) for each in channel] if channel else channels_of(rentals, team)
    zones = Schedules(rentals.store, settings.digest.default_schedule()).zones(team, wanted)
    found = digests_now(
        rentals,
        team,
        wanted,
        rentals.store.now(),
        policy.idle,
        policy.metering,
        zones.__getitem__,
        team_worth(settings),
    )
    if owner is not None:  # one person's, as chat's `idle mine` (found items are nobody's yet)
        whose = checked_owner(settings, team, owner)
        found = {c: _owned(d, whose) for c, d in found.items()}
    shown = {c: d for c, d in found.items() if has_news(d)}
    if as_json:
        out = [{"channel": c, **asdict(d)} for c, d in shown.items()]
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2, default=_iso) + "\n")
        return
    lang_ = settings.files.lang
    if not shown:
        rule = {"minutes": f"{policy.idle.window_minutes:g}", "pct": f"{policy.idle.utilisation_max_pct:g}"}
        sys.stdout.write(t("cli.idle_none", lang_, **rule) + "\n")
        return
    for name, digest in shown.items():
        zone = zones[name]
        lines = [instance_line(n, lang_, zone) for n in digest.instances]
        lines += [storage_line(s, lang_) for s in digest.storage]
        lines += [lifecycle_line(e, lang_, zone) for e in digest.lifecycle]
        if digest.found:
            lines += [t("digest.found_title", lang_), *(found_line(f, lang_) for f in digest.found)]
        count = len(digest.instances) + len(digest.storage) + len(digest.lifecycle) + len(digest.found)
        said = [f"{name}: {digest_header(count, lang_)}", *(f"  {line}" for line in lines)]
        said += [f"  {note}" for note in digest_notes(digest, lang_, zone)]
        sys.stdout.write(plain_text("\n".join(said)).replace("*", "") + "\n")


def _owned(digest: Digest, owner: str) -> Digest:
    """The digest with `owner`'s items alone."""
    return replace(
        digest,
        instances=[n for n in digest.instances if n.owner == owner],
        storage=[n for n in digest.storage if n.owner == owner],
        lifecycle=[n for n in digest.lifecycle if n.owner == owner],
        found=[],
    )


def _iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else str(value)
