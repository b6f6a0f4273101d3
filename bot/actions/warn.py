"""The digest's side of warn-then-act: in a channel whose policy is `stop`, each idle instance the bot can
stop (an agent's box, enrolled or tracked with its agent running; a cloud's instance) says when it will be
stopped unless someone presses Still needed; one it cannot stop (tracked by hand, Kubernetes) says so. The
warning is kept once the digest is posted, with its deadline: the post's time plus the grace. In an `off`
channel (or project) idle instances are not listed at all."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from bot.state.actions import Actions, Policy, Warning
from bot.state.power import PowerLog
from bot.state.rentals import Instance, Rentals
from rules import metering
from rules.digest import Digest
from rules.idle import Activity
from rules.sources import CLOUD_SOURCES

STOPPABLE = ("agent", *CLOUD_SOURCES)


def platform_stops_first(inst: Instance, grace: timedelta) -> bool:
    """The platform's own idle rule (a DSW notebook's idle culler) stops it sooner than the bot's grace would:
    the bot neither warns nor stops it, so that it never races or contradicts the platform."""
    rule = inst.idle_rule_minutes
    return rule is not None and rule > 0 and timedelta(minutes=rule) <= grace


def _asked_to_stop(warning: Warning, inst: Instance, agents: set[int]) -> bool:
    """Whether an open warning is a stop a person asked for that the bot will make (not a reminder, not yet under
    way), of an instance it can stop."""
    if not warning.asked_by or warning.status != "warned" or warning.remind_only:
        return False  # a reminder stops nothing
    return inst.source in STOPPABLE or inst.id in agents


class Warner:
    def __init__(self, rentals: Rentals) -> None:
        self.rentals, self.actions = rentals, Actions(rentals.store)
        self._named: dict[tuple[str, str], dict[str, Instance]] = {}  # what annotate read, for record

    def _instances(self, team: str, channel: str) -> dict[str, Instance]:
        if (team, channel) not in self._named:
            self._named[(team, channel)] = {
                i.name: i for i in self.rentals.instances(team, channel=channel, active_only=True)
            }
        return self._named[(team, channel)]

    def annotate(self, team: str, channel: str, digest: Digest, moment: datetime, *, promise: bool = True) -> Digest:
        """The digest with each idle instance's stop time (or that it is never stopped), by policy. `promise`: False
        where no warning is given with it (a digest composed again, `idle`'s answer): only a warning already given
        has a stop time; the daily digest gives one, and `record` keeps it."""
        if not digest.instances:
            return digest
        named = self._instances(team, channel)
        open_now = self.actions.open_for([i.id for i in named.values()])
        agents = PowerLog(self.rentals.store).with_agents(i.id for i in named.values() if i.source not in STOPPABLE)
        refused = self.actions.refused([i.id for i in named.values()])
        policies: dict[str | None, Policy] = {}  # one read per project, not per item
        out = []
        for news in digest.instances:
            inst = named.get(news.name)
            project = inst.project if inst else None
            if project not in policies:
                policies[project] = self.actions.policy(team, channel, project)
            policy = policies[project]
            if policy.mode == "off":
                continue
            asked = open_now.get(inst.id) if inst is not None else None
            if asked is not None and asked.once_idle:
                out.append(news)  # stopped as soon as it is idle, by the idle rule: no time to say
            elif inst is not None and asked is not None and _asked_to_stop(asked, inst, agents):
                # a stop a person asked for (`stop NAME at=…`): its time, in any channel, busy or idle
                out.append(replace(news, stop_at=asked.deadline, stop_keeps_billing=metering.keeps(inst)))
            elif inst is None or policy.mode != "stop" or news.activity is not Activity.IDLE:
                out.append(news)
            elif inst.id in refused and inst.id not in open_now:  # its cloud refused the stop: not promised again
                out.append(replace(news, stop_refused=True))
            elif inst.source not in STOPPABLE and inst.id not in agents:  # an agent's box is stopped through it
                out.append(replace(news, never_stopped=True))
            elif platform_stops_first(inst, policy.grace) or (inst.id not in open_now and not promise):
                out.append(news)  # listed with its own rule (no race with the platform), or no warning given yet
            else:
                warned = open_now.get(inst.id)
                deadline = warned.deadline if warned else moment + policy.grace
                # a flavor that bills while stopped, or a prepaid one: the stop saves nothing, said before it
                out.append(replace(news, stop_at=deadline, stop_keeps_billing=metering.keeps(inst)))
        return replace(digest, instances=out)

    def record(
        self, team: str, channel: str, digest: Digest, ts: str | None, moment: datetime, lang: str | None = None
    ) -> int:
        """Keep the warnings the posted digest gave (an instance warned already keeps its first deadline)."""
        if not any(news.stop_at is not None for news in digest.instances):
            return 0
        named = self._instances(team, channel)
        made = 0
        for news in digest.instances:
            inst: Instance | None = named.get(news.name)
            if news.stop_at is not None and inst is not None:
                made += self.actions.warn(team, inst.id, channel, moment, news.stop_at, ts, lang) is not None
        return made
