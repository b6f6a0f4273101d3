"""A stop a person asks for (chat's `stop NAME [at=TIME] [remind] | once idle`, the terminal's `gpu-advise stop`):
what the bot can do about the instance and the warning kept for it, decided here once for both surfaces;
bot/actions/due.py carries it out when it is due."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.state.actions import Actions, Warning
from bot.state.power import PowerLog
from bot.state.rentals import Instance
from bot.state.store import Store
from bot.text import Lang, t
from bot.text.format import mention
from rules.sources import CLOUD_SOURCES


class NotAsked(Exception):
    """A stop that cannot be kept: `needs_time` (a reminder asked for now), `cannot` (now or once idle, and the bot
    cannot stop this instance), `under_way` (a stop of it is under way already)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Asked:
    kind: str  # agent, cloud (how it will be stopped), reminder (the bot cannot: its owner told), remind (asked so)
    new: Warning
    before: Warning | None  # the open warning it replaced


def ask_stop(
    store: Store,
    inst: Instance,
    channel: str,
    now: datetime,
    when: datetime | None,
    by: str,
    lang: str | None,
    *,
    remind: bool = False,
    once_idle: bool = False,
) -> Asked:
    """Keep a stop of `inst` asked for at `when` (None: now, or from now once idle); NotAsked where it cannot be."""
    if remind and when is None:
        raise NotAsked("needs_time")
    how = None if remind else stopped_by(store, inst)
    if when is None and how is None:
        raise NotAsked("cannot")
    new, before = Actions(store).ask(
        inst.team, inst.id, channel, now, when or now, by, lang, remind=remind, once_idle=once_idle
    )
    if new is None:
        raise NotAsked("under_way")
    return Asked(how or ("remind" if remind else "reminder"), new, before)


def stopped_by(store: Store, inst: Instance) -> str | None:
    """How the bot can stop an instance: "agent" (an enrolled box, or one kept with `track` whose agent reports:
    the stop rides on its next heartbeat's answer), "cloud" (a cloud's instance, through its API), or None (tracked
    by hand, Kubernetes: never stopped by the bot)."""
    if inst.source == "agent" or (inst.source not in CLOUD_SOURCES and inst.machine_id is not None):
        return "agent"
    if inst.source not in CLOUD_SOURCES and PowerLog(store).with_agents([inst.id]):
        return "agent"
    if inst.source in CLOUD_SOURCES and inst.provider_id and inst.provider_region:
        return "cloud"
    return None


def asker_said(asked_by: str | None, lang: Lang) -> str:
    """Who asked for a stop, as a message says them: a person mentioned, or the terminal (bot/cli/stop.py)."""
    return t("action.asker_terminal", lang) if asked_by in (None, "terminal") else mention(str(asked_by))
