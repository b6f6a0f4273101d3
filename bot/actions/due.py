"""`actions:due`, every minute, once per slot across replicas: each warning past its deadline is judged again
on fresh data, and the instance is stopped only if it was idle over the whole idle window up to now.

Nothing is done (the warning is cancelled, and the thread says why) when the data is unknown or stale, the
instance was busy or held GPU memory, someone pressed Still needed or snoozed it, or it was released since the
warning. An agent's box is stopped by its agent (the request rides on the next heartbeat's answer); a cloud's
instance by its cloud (bot/discover/cloud.py: never terminated or released), confirmed by a describe. A failed
stop is tried once more, then reported in the channel and left to people. After a stop: the instance is released
by the bot, the digest's item says so, the owner gets a DM, and the audit row keeps what was judged; one the cloud
stopped with its meter running (Alibaba Cloud's keep-charging mode) is kept instead, said to be still billed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bot.actions.asked import asker_said, stopped_by
from bot.actions.warn import platform_stops_first
from bot.chat.port import ChatError, Teller
from bot.deps import Deps
from bot.discover.cloud import STOP_SETTLE_S, CloudError, Stopped
from bot.discover.registry import clouds
from bot.state.actions import BOOTED_AFTER_STOP, Actions, Warning
from bot.state.power import PowerLog, Sighting
from bot.state.rentals import Instance, Rentals
from bot.state.schedules import Schedules
from bot.text import Lang, t
from bot.text.catalogue import has
from bot.text.format import literal, mention, money, show
from bot.text.problem import Problem, said
from bot.text.spans import channel_ref
from rules import metering
from rules.digest import per_day
from rules.idle import Activity, judge
from rules.power import Power, restarted_at

log = logging.getLogger(__name__)
AGENT_WAIT = timedelta(minutes=15)  # an agent that has not taken its stop by then is asked once more
TRIES = 2  # a stop is tried twice, then left to people
# An agent's "stop command ran" is confirmed by the box going quiet: no sample newer than the answer (past a
# slack for samples taken before the command ran) by CONFIRM_AFTER; a box still reporting then is not stopped.
CONFIRM_AFTER = timedelta(minutes=5)
CONFIRM_SLACK = timedelta(minutes=2)
# A stop asked for once the box is idle waits this long for it (busy, or no fresh data, meanwhile), then is called off
# and said: a job that runs a week past what was said is not stopped days later by a word forgotten.
IDLE_WAIT = timedelta(days=3)
WAITED_ON = ("busy", "memory_held", "unknown", "young")  # what keeps such a stop waiting, rather than called off


@dataclass(frozen=True)
class Ctx:
    """What one run works with."""

    deps: Deps
    teller: Teller  # the team's chat
    actions: Actions
    rentals: Rentals
    now: datetime


@dataclass(frozen=True)
class Verdict:
    stop: bool
    why: str  # a catalogue key's last part: idle, unknown, busy, memory_held, still_needed, released, ...
    figures: dict[str, Any]


def judge_again(deps: Deps, rentals: Rentals, inst: Instance | None, warning: Warning, now: datetime) -> Verdict:
    """Is the instance still idle over the whole idle window up to now, on data no older than the window?"""
    if inst is None or inst.team != warning.team:
        return Verdict(False, "gone", {})
    if inst.released_at is not None:
        return Verdict(False, "released", {})
    if inst.snoozed_until is not None and inst.snoozed_until > warning.warned_at:
        return Verdict(False, "still_needed", {})
    if warning.asked_by and not warning.once_idle:  # a person asked for it at this time: idleness not judged
        return Verdict(True, "asked", {"asked_by": warning.asked_by})
    if platform_stops_first(inst, warning.deadline - warning.warned_at):  # its own rule appeared since the warning
        return Verdict(False, "platform_stops_it", {"idle_rule_minutes": inst.idle_rule_minutes})
    rules = deps.policy.idle
    window = timedelta(minutes=rules.window_minutes)
    samples = rentals.recent([inst.id], now - window)[inst.id]
    figures = {
        "from": (now - window).isoformat(timespec="minutes"),
        "to": now.isoformat(timespec="minutes"),
        "samples": len(samples),
        "max_utilization_pct": max((s.utilization_pct for s in samples), default=None),
    }
    started = max(inst.launched_at or inst.started_at, _powered_on(deps, inst, now, window) or inst.started_at)
    verdict = judge(samples, started=started, now=now, rules=rules)
    return Verdict(verdict is Activity.IDLE, str(verdict), figures)


def _powered_on(deps: Deps, inst: Instance, now: datetime, window: timedelta) -> datetime | None:
    """When the instance was last started again after being off, within two windows of now (rules/power.py)."""
    stretches = PowerLog(deps.store, deps.policy.metering).timelines([inst], now, since=now - 2 * window)[inst.id]
    return restarted_at(stretches)


def run_actions(deps: Deps, teller_of: Callable[[str], Teller]) -> int:
    """Do what is due; returns how many warnings moved on. `teller_of(team)`: the team's chat."""
    actions, rentals, now = Actions(deps.store), Rentals(deps.store), deps.now()
    moved = 0
    for warning in actions.due(now, AGENT_WAIT):
        ctx = Ctx(deps, teller_of(warning.team), actions, rentals, now)
        try:
            moved += _step(ctx, warning, rentals.by_id(warning.instance_id))
        except Exception:  # one item's trouble never stops the others'
            log.exception("action %s on instance %s failed", warning.id, warning.instance_id)
    return moved


def _step(ctx: Ctx, warning: Warning, inst: Instance | None) -> int:
    if warning.status in ("done", "agent_failed", "requested"):
        return _agent_answer(ctx, warning, inst)
    verdict = judge_again(ctx.deps, ctx.rentals, inst, warning, ctx.now)
    if not verdict.stop and warning.once_idle and verdict.why in WAITED_ON:
        if ctx.now < warning.deadline + IDLE_WAIT:
            return 0  # `stop NAME once idle`: not idle yet (or no fresh data): judged again at the next run
        verdict = Verdict(False, "never_idle", verdict.figures)  # waited long enough: called off, and said
    if not verdict.stop or inst is None:
        if ctx.actions.move(warning.id, "warned", "cancelled", ctx.now, detail=verdict.why, figures=verdict.figures):
            _count(ctx, "cancelled")
            _say(ctx, warning, inst, "action.cancelled", reason=verdict.why)
            return 1
        return 0
    how = stopped_by(ctx.rentals.store, inst)
    if warning.asked_by and (how is None or warning.remind_only):
        return _remind(ctx, warning, inst, verdict, can_stop=how is not None)
    if how == "agent":
        if ctx.actions.move(warning.id, "warned", "requested", ctx.now, figures=verdict.figures, attempt=True):
            log.info("asked the agent of %s to stop it (action %s)", inst.name, warning.id)
            return 1
        return 0
    if how == "cloud":
        return _stop_in_cloud(ctx, warning, inst, verdict)
    if ctx.actions.move(warning.id, "warned", "cancelled", ctx.now, detail="not_stoppable", figures=verdict.figures):
        _say(ctx, warning, inst, "action.cancelled", reason="not_stoppable")
    return 1


def _remind(ctx: Ctx, warning: Warning, inst: Instance, verdict: Verdict, *, can_stop: bool) -> int:
    """The time a person asked for has come, and the bot is not to stop it (it cannot, or they asked to be reminded
    only): its owner is told here, with what to do (and, where the bot could, how to have it stopped)."""
    detail = "remind" if can_stop else "not_stoppable"
    if ctx.actions.move(warning.id, "warned", "reminded", ctx.now, detail=detail, figures=verdict.figures):
        key = "action.asked_remind" if can_stop else "action.asked_reminder"
        _say(ctx, warning, inst, key, asker=warning.asked_by, item=inst.name)
    return 1


def _stop_in_cloud(ctx: Ctx, warning: Warning, inst: Instance, verdict: Verdict) -> int:
    region = inst.provider_region or ""
    instance_id = (inst.provider_id or "").split(":", 1)[1]
    make = clouds(ctx.deps.settings).get(inst.source)
    if make is None:
        return _failed_try(ctx, warning, inst, "warned", f"{inst.source} is not turned on in this deployment")
    if _objected(ctx, warning, inst):  # judged again right before the call: a Still needed since counts
        if ctx.actions.move(warning.id, "warned", "cancelled", ctx.now, detail="still_needed"):
            _say(ctx, warning, inst, "action.cancelled", reason="still_needed")
        return 1
    try:
        done = make().stop(region, instance_id)
        problem = _not_a_stop(done, instance_id)
    except CloudError as exc:
        if exc.final:  # the cloud refuses this for this instance: trying again cannot help, said at once
            log.warning("stopping %s refused: %s", inst.name, exc)
            refused = {**verdict.figures, "refused": True}  # never warned or tried again (bot/actions/warn.py)
            if ctx.actions.move(
                warning.id, "warned", "failed", ctx.now, detail=str(exc), figures=refused, attempt=True
            ):
                _count(ctx, "failed")
                _say(ctx, warning, inst, "action.refused", problem=exc.problem)
            return 1
        problem = exc.problem
    if problem is not None:
        return _failed_try(ctx, warning, inst, "warned", problem)
    if done.charging:  # stopped, its meter still running: kept (never released by the bot), said to be billed
        PowerLog(ctx.rentals.store).sight([Sighting(inst.id, Power.OFF, ctx.now, inst.source, True)])
        ctx.rentals.set_billing(inst.team, inst.name, stop_billing="keeps")
        inst = ctx.rentals.by_id(inst.id) or inst
    detail = f"{inst.source} {done.how}: {done.state}" + (", still charging" if done.charging else "")
    if ctx.actions.move(warning.id, "warned", "stopped", ctx.now, detail=detail, figures=verdict.figures, attempt=True):
        _stopped(ctx, warning, inst, late=_objected(ctx, warning, inst))  # pressed while the call was on its way
    return 1


def _not_a_stop(done: Stopped, instance_id: str) -> str | None:
    """Why what the cloud said after the stop does not count as stopped: running still, or still stopping without
    having said whether it bills on (never counted as saved); None when it counts."""
    if done.state == "stopping" and done.charging is None:
        return Problem("cloud.still_stopping", instance=instance_id, minutes=round(STOP_SETTLE_S / 60))
    return None if done.state in ("stopping", "stopped") else f"the instance is {done.state} after the stop"


def _objected(ctx: Ctx, warning: Warning, inst: Instance) -> bool:
    """Has someone pressed Still needed (or snoozed it) since the warning? Read fresh from the store."""
    fresh = ctx.rentals.by_id(inst.id)
    return bool(fresh and fresh.snoozed_until is not None and fresh.snoozed_until > warning.warned_at)


def _failed_try(ctx: Ctx, warning: Warning, inst: Instance | None, expected: str, problem: str) -> int:
    """A stop that did not work: tried once more (the warning stays due), then reported and left to people."""
    tried = warning.attempts + 1 if expected == "warned" else warning.attempts  # an agent's tries counted when asked
    log.warning("stopping %s failed (try %d): %s", inst.name if inst else warning.instance_id, tried, problem)
    attempt = expected == "warned"
    if tried < TRIES:
        return int(ctx.actions.move(warning.id, expected, "warned", ctx.now, detail=problem, attempt=attempt))
    if ctx.actions.move(warning.id, expected, "failed", ctx.now, detail=problem, attempt=attempt):
        _count(ctx, "failed")
        _say(ctx, warning, inst, "action.failed", problem=problem)
    return 1


def _agent_answer(ctx: Ctx, warning: Warning, inst: Instance | None) -> int:
    if warning.status == "done" and inst is not None and warning.detail == BOOTED_AFTER_STOP:
        # the stop ran (the box went down), and someone has started the box again: stopped, and an item again
        if ctx.actions.move(warning.id, "done", "stopped", ctx.now):
            _count(ctx, "stopped")
            _say(ctx, warning, inst, "action.stopped_then_started")
        return 1
    if warning.status == "requested" and inst is not None and _quiet_since_handed(ctx, warning, inst):
        # handed over, and the box went quiet with no answer: its stop command took it down before the agent said so
        if ctx.actions.move(warning.id, "requested", "stopped", ctx.now, detail="quiet_after_handed"):
            _stopped(ctx, warning, inst)
        return 1
    if warning.status == "done" and inst is not None:
        answered = warning.decided_at or ctx.now
        still = ctx.rentals.samples(inst.id, answered + CONFIRM_SLACK)
        if still:  # it said the command worked, and its box goes on sampling: not stopped, its token kept
            log.warning("%s still reports after its stop command said it worked: not stopped", inst.name)
            return _failed_try(ctx, warning, inst, "done", _still_reporting(still[-1].at))
        if ctx.now - answered < CONFIRM_AFTER:
            return 0  # stop requested; confirmed when the box has gone quiet
        if ctx.actions.move(warning.id, "done", "stopped", ctx.now):
            _stopped(ctx, warning, inst)
        return 1
    problem = warning.detail or "the agent's stop command failed"
    if warning.status == "requested":
        problem = "the agent did not take the stop within 15 minutes (is it running?)"
    return _failed_try(ctx, warning, inst, warning.status, problem)


def _quiet_since_handed(ctx: Ctx, warning: Warning, inst: Instance) -> bool:
    """Was the stop handed to the agent, and has its box sent nothing since (a stop command that took the box down
    before the agent could answer)?"""
    if warning.handed_at is None or ctx.now - warning.handed_at < CONFIRM_AFTER:
        return False
    return not ctx.rentals.samples(inst.id, warning.handed_at + CONFIRM_SLACK)


def _still_reporting(last: datetime) -> str:
    return f"the stop command said it worked, but the box kept reporting (last sample {last:%Y-%m-%d %H:%M} UTC)"


def _stopped(ctx: Ctx, warning: Warning, inst: Instance, *, late: bool = False) -> None:
    """The bot stopped it: off from now. Where stopping stops the meter it is released (saving its rate); where
    the meter keeps running (a period item, a platform that bills a stopped box) it stays, still billed, and the
    channel is told it saves nothing until released at the provider."""
    PowerLog(ctx.rentals.store).stopped(inst.id, ctx.now, ctx.now)  # merged with what the machines saw; never refused
    _count(ctx, "stopped")
    still_billed = metering.keeps(inst)
    if not still_billed:
        ctx.rentals.release_by(inst.id, ctx.now, "bot")
    priced = money(per_day(inst), inst.currency) if inst.price is not None else None
    since = ctx.rentals.quiet_since([inst.id], ctx.now - timedelta(days=1)).get(inst.id)
    idle = f"{show(round((ctx.now - since).total_seconds() / 3600, 1))} h" if since else "?"
    key = "action.stopped_still_billed" if still_billed else "action.stopped"
    if warning.asked_by:  # at the time someone asked for: said as theirs, not as idleness judged
        key = key.replace("action.stopped", "action.asked_stopped")
    if late:  # Still needed came while the stop was on its way: it was stopped all the same, said truthfully
        key = "action.stopped_despite_still_needed"
    asker = {"asker": warning.asked_by} if warning.asked_by else {}
    _say(ctx, warning, inst, key, saved=priced, idle=idle, **asker)
    try:
        owner_lang = ctx.teller.lang_of(inst.owner)  # the owner's own
        saved = priced or t("digest.price_unknown", owner_lang)  # an unknown amount, said in the DM's language
        text = t(f"{key}_dm", owner_lang, name=literal(inst.name), channel=channel_ref(warning.channel), saved=saved)
        restart = f"action.restart.{inst.source}"  # a cloud's start can fail for want of a free card: said where
        if not still_billed and has(restart):  # it is the owner who will start it
            text += " " + t(restart, owner_lang)
        ctx.teller.direct(inst.owner, text)
    except ChatError as exc:
        log.warning("could not tell %s their instance was stopped: %s", inst.owner, exc.code)


def _say(ctx: Ctx, warning: Warning, inst: Instance | None, key: str, **params: str | None) -> None:
    """Said in the digest's thread (or the channel), in the digest's language and the channel's zone; a `saved`
    of None is an unknown amount, said in that language."""
    schedule = Schedules(ctx.deps.store, ctx.deps.settings.digest.default_schedule()).of(warning.team, warning.channel)
    lang = Lang(warning.lang or schedule.lang or ctx.deps.settings.files.lang)
    zone = ZoneInfo(schedule.zone)
    if "saved" in params and params["saved"] is None:
        params["saved"] = t("digest.price_unknown", lang)
    if "asker" in params:  # who asked for the stop, said in the message's language
        params["asker"] = asker_said(params["asker"], lang)
    reason = params.pop("reason", None)  # why nothing was done: one of action.why.*
    why = t(f"action.why.{reason}", lang) if reason else str(said(params.pop("problem", "") or "", lang))
    text = t(
        key,
        lang,
        name=literal(inst.name) if inst else str(warning.instance_id),
        owner=mention(inst.owner) if inst else "",
        at=f"{ctx.now.astimezone(zone):%H:%M} {zone.key}",
        why=why,
        **params,
    )
    keep = key == "action.cancelled"
    if (
        inst is not None
        and warning.message_ts
        and ctx.teller.note_item(warning.channel, warning.message_ts, inst.name, text, keep_item=keep)
    ):
        return
    try:  # the digest could not be updated (too old, deleted): said in its thread instead
        ctx.teller.say(warning.channel, text, thread=warning.message_ts)
    except ChatError as exc:
        log.warning("could not say %s in %s: %s", key, warning.channel, exc.code)


def _count(ctx: Ctx, result: str) -> None:
    ctx.deps.metrics.actions.labels("stop", result).inc()
