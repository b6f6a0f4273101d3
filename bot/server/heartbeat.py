"""POST /api/heartbeat: a tracked instance's agent sends its GPU samples and disk sizes.

`Authorization: Bearer TOKEN` names the instance (the token `gpu-advise track instance` printed once;
only its hash is stored, and releasing the instance revokes it). Answers 202 with what was kept;
401 without a valid token, storing nothing; 400 for a malformed body, naming the field; 413 above
`heartbeat_max_bytes`. Samples carry their own time: up to GPU_ADVISOR_HEARTBEAT_MAX_AGE_HOURS (24) old
is kept (an agent sends what it buffered; a backfill may send more), older is counted and dropped, later
than a few minutes ahead is refused (a wrong clock would make a busy card look idle). A repeated sample
(an agent's retry) is kept once. Each post is the agent's word that its box is on; `"power": "off"` (its last
post before the box stops) that it is off from `power_at` (rules/power.py). The token never appears in a log.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails

from bot.state.actions import BOOTED_AFTER_STOP, Actions
from bot.state.power import PowerLog, Sighting
from bot.state.rentals import BOUNDS, DiskReport, Instance, Rentals, in_range
from rules.policy import Metering
from rules.power import Power
from rules.samples import Sample

PATH = "/api/heartbeat"
MAX_AGE = timedelta(hours=24)
MAX_AHEAD = timedelta(minutes=5)
log = logging.getLogger(__name__)


def _plausible(moment: datetime) -> datetime:
    if not in_range(moment):
        raise ValueError("is not a time between 1970 and 2200")
    return moment


Moment = Annotated[AwareDatetime, AfterValidator(_plausible)]
_MIB = BOUNDS["memory_mib"][1]


class SampleIn(BaseModel):
    # the bounds every front end keeps (bot/state/rentals.py BOUNDS); never Infinity or NaN
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)
    ts: Moment
    gpu: int = Field(ge=0, le=1023)
    utilization_pct: float = Field(ge=0, le=100)
    memory_used_mib: float = Field(ge=0, le=_MIB)
    memory_total_mib: float = Field(gt=0, le=_MIB)
    power_w: float | None = Field(default=None, ge=0, le=BOUNDS["power_w"][1])

    @model_validator(mode="after")
    def _memory_fits(self) -> SampleIn:
        if self.memory_used_mib > self.memory_total_mib:
            raise ValueError("memory_used_mib is larger than memory_total_mib")
        return self


class DiskIn(BaseModel):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)
    path: str = Field(min_length=1, max_length=400)
    size_gb: float = Field(ge=0, le=BOUNDS["size_gb"][1])
    newest_mtime: Moment | None = None


class ActionResultIn(BaseModel):
    """What the agent's --on-stop command did with a stop the bot asked for."""

    model_config = ConfigDict(extra="ignore")
    id: int = Field(ge=1)
    ok: bool
    detail: str = Field(default="", max_length=2000)


class HeartbeatIn(BaseModel):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)
    samples: list[SampleIn] = Field(max_length=50_000)
    disks: list[DiskIn] = Field(default_factory=list, max_length=200)
    action_result: ActionResultIn | None = None
    power: Literal["on", "off"] | None = None  # "on": the first post after the box booted; "off": it is stopping
    power_at: Moment | None = None  # when (else when the post arrived)


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict[str, Any]


def field_name(error: ErrorDetails) -> str:
    name = ""
    for part in error["loc"]:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name or "body"


def bearer(header: str | None) -> str | None:
    scheme, _, token = (header or "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def identify(rentals: Rentals, authorization: str | None) -> Instance | Answer:
    """The instance whose token this is, or the 401 to give: checked from the header alone, before any
    of the body is read, so a request without a valid token costs no memory."""
    token = bearer(authorization)
    instance = rentals.by_token(token) if token else None
    if instance is None:
        reason = "no bearer token" if token is None else "unknown or revoked token"
        log.info("heartbeat refused: %s", reason)
        return Answer(
            401, {"error": f"{reason}: send Authorization: Bearer <the token `gpu-advise track instance` printed>"}
        )
    return instance


def receive(
    rentals: Rentals,
    instance: Instance,
    body: bytes,
    now: Callable[[], datetime],
    *,
    busy_above_pct: float,
    max_age: timedelta = MAX_AGE,
    metering: Metering | None = None,
) -> Answer:
    """What an identified heartbeat request gets; the HTTP details (size limit, headers) are the server's."""
    try:
        beat = HeartbeatIn.model_validate_json(body)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        return Answer(400, {"error": f"{field_name(first)}: {first['msg']}", "field": field_name(first)})
    moment = now()
    for index, sample in enumerate(beat.samples):
        if sample.ts > moment + MAX_AHEAD:
            return Answer(
                400,
                {
                    "error": f"samples[{index}].ts: {sample.ts.isoformat()} is in the future (check the agent's clock)",
                    "field": f"samples[{index}].ts",
                },
            )
    fresh = [s for s in beat.samples if s.ts >= moment - max_age]
    started_again = instance.released_at is not None and beat.power != "off" and (fresh or beat.power == "on")
    if started_again and rentals.unrelease(instance.id):  # the bot stopped it, someone started it: it bills again
        log.info("%s reports again after the bot stopped it: tracked again", instance.name)
    kept = rentals.add_samples(
        instance.id,
        [Sample(s.ts, s.gpu, s.utilization_pct, s.memory_used_mib, s.memory_total_mib) for s in fresh],
        [s.power_w for s in fresh],
        busy_above_pct=busy_above_pct,
    )
    _sight(rentals, instance, beat, fresh, moment, metering, max_age)
    seen = len({s.gpu for s in fresh})
    corrected = rentals.cards_seen(instance, seen, moment)
    if corrected:  # said once: the next heartbeat finds the cards already counted
        log.info("%s: its agent sees %d cards, tracked with %d: counted from now", instance.name, seen, instance.cards)
    if beat.disks:
        rentals.report_disks(instance.id, [DiskReport(d.path, d.size_gb, d.newest_mtime) for d in beat.disks], moment)
    said: dict[str, Any] = {
        "instance": instance.name,
        "kept": kept,
        "repeated": len(fresh) - kept,
        "too_old": len(beat.samples) - len(fresh),
        "disks": len(beat.disks),
    }
    if corrected:
        said["cards"] = seen  # the agent's count now bills
    actions = Actions(rentals.store)
    if beat.action_result is not None:
        said["action_result"] = _take_result(actions, instance, beat.action_result, moment)
    asked = actions.requested_for(instance.id)
    if asked is not None and instance.snoozed_until is not None and instance.snoozed_until > asked.warned_at:
        actions.still_needed(instance.id, moment)  # judged again right before it is handed over: still needed since
        asked = None
    booted_at = min(beat.power_at or moment, moment) if beat.power == "on" else None
    if asked is not None and asked.handed_at is not None and booted_at is not None and booted_at > asked.handed_at:
        # the box booted after its stop was handed over: the stop command took it down before its agent could say
        # so. Done, and never handed again: it would shut down the box someone has just started.
        actions.move(asked.id, "requested", "done", moment, detail=BOOTED_AFTER_STOP)
        log.info("%s booted after its stop was handed over: the stop ran, not handed again", instance.name)
        asked = None
    if asked is not None:  # a stop the bot decided on: the agent runs its --on-stop command
        if asked.handed_at is None:  # the first hand-over is what counts: no write at every later heartbeat
            actions.handed(asked.id, moment)
        said["action"] = {"id": asked.id, "kind": "stop"}
    return Answer(202, said)


def _sight(
    rentals: Rentals,
    instance: Instance,
    beat: HeartbeatIn,
    fresh: list[SampleIn],
    moment: datetime,
    metering: Metering | None,
    max_age: timedelta,
) -> None:
    """A post is the agent's word that its box is on (as of its newest sample, or now), unless it says "off"."""
    said_at = min(max(beat.power_at or moment, moment - max_age), moment)  # an agent's clock may be off
    newest = max((s.ts for s in fresh), default=None)
    seen = [Sighting(instance.id, Power.ON, newest, "agent")] if newest is not None else []
    if beat.power == "off":
        seen = [x for x in seen if x.at < said_at] + [Sighting(instance.id, Power.OFF, said_at, "agent")]
    else:
        seen.append(Sighting(instance.id, Power.ON, said_at if beat.power == "on" else moment, "agent"))
    PowerLog(rentals.store, metering).sight(seen)


def _take_result(actions: Actions, instance: Instance, result: ActionResultIn, moment: datetime) -> str:
    """Keep what the agent's stop command did; the actions job says it in Slack."""
    asked = actions.get(result.id)
    if asked is None or asked.instance_id != instance.id or asked.status != "requested":
        return "unknown"  # not this box's, or answered already (a retried post): nothing changes
    detail = result.detail or ("the stop command ran" if result.ok else "the stop command failed")
    actions.move(result.id, "requested", "done" if result.ok else "agent_failed", moment, detail=detail)
    log.info("the agent of %s answered stop %s: %s", instance.name, result.id, "ok" if result.ok else "failed")
    return "kept"


def encode(answer: Answer) -> bytes:
    return json.dumps(answer.body, ensure_ascii=False).encode()
