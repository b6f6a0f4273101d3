"""Warn, then act, in the state database: each channel's (or project's) policy, and each warning with its
outcome, which is also the audit of every action taken.

A warning goes from `warned` to `cancelled` (with why), to `requested` (an agent's box: the stop rides on its
next heartbeat's answer) and then `stopped` or `failed`, or straight to `stopped` or `failed` (a cloud
instance). Every change of status is a conditional UPDATE (`where status = the one expected`), so two
replicas, or a retry after a restart, never act twice on one warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, delete, insert, or_, select, update

from bot.state.schema import act_policies, rental_instances, stop_actions
from bot.state.store import Store

MODES = ("off", "notify", "stop")
BOOTED_AFTER_STOP = "booted_after_stop"  # a stop's detail: its box went down with no answer and has booted since
DEFAULT_GRACE = timedelta(hours=4)
OPEN = ("warned", "requested", "done", "agent_failed")
OBJECTION_LATE = timedelta(
    hours=1
)  # a Still needed within this of a stop that ran is told it came too late  # not decided yet, or not yet said in Slack


@dataclass(frozen=True)
class Policy:
    mode: str  # off, notify, stop
    grace: timedelta
    set_by: str | None = None  # None: the default (notify)
    project: str = ""  # "": the channel's own


@dataclass(frozen=True)
class Warning:
    id: int
    team: str
    instance_id: int
    channel: str
    message_ts: str | None
    lang: str | None
    warned_at: datetime
    deadline: datetime
    status: str
    attempts: int
    requested_at: datetime | None
    decided_at: datetime | None
    detail: str | None
    figures: dict[str, Any] | None
    handed_at: datetime | None = None  # when a heartbeat's answer first carried it to the agent
    asked_by: str | None = None  # who asked for a stop at the deadline (0039); None: the idle policy's warning

    @property
    def once_idle(self) -> bool:
        """A stop a person asked for once the box is idle (`stop NAME once idle`, `训练机 跑完就关`), from the
        deadline on."""
        return bool(self.asked_by and (self.figures or {}).get("once_idle"))

    @property
    def remind_only(self) -> bool:
        """A stop a person asked for as a reminder alone (`stop NAME at=… remind`): its owner told, nothing stopped."""
        return bool(self.asked_by and (self.figures or {}).get("remind"))


def _warning(row: Any) -> Warning:
    return Warning(**{column.name: row._mapping[column.name] for column in stop_actions.columns})


def _made(
    conn: Any, team: str, instance_id: int, channel: str, warned_at: datetime, deadline: datetime, **values: Any
) -> Warning:
    """A new warning, due at `deadline` (the idle policy's, or a stop asked for: `asked_by`), as kept."""
    a = stop_actions.c
    made = conn.execute(
        insert(stop_actions)
        .values(
            team=team,
            instance_id=instance_id,
            channel=channel,
            warned_at=warned_at,
            deadline=deadline,
            status="warned",
            attempts=0,
            **values,
        )
        .returning(a.id)
    ).scalar_one()
    return _warning(conn.execute(select(stop_actions).where(a.id == made)).one())


# asked at every heartbeat: made once, its value bound at each call
REQUESTED_FOR = select(stop_actions).where(
    stop_actions.c.instance_id == bindparam("b_id"), stop_actions.c.status == "requested"
)


class Actions:
    def __init__(self, store: Store) -> None:
        self.store = store

    # policies

    def set_policy(
        self, team: str, channel: str, mode: str, grace: timedelta, *, project: str = "", by: str, now: datetime
    ) -> None:
        p = act_policies.c
        with self.store.writing() as conn:
            conn.execute(delete(act_policies).where(p.team == team, p.channel == channel, p.project == project))
            conn.execute(
                insert(act_policies).values(
                    team=team,
                    channel=channel,
                    project=project,
                    mode=mode,
                    grace_s=int(grace.total_seconds()),
                    set_by=by,
                    updated_at=now,
                )
            )

    def policy(self, team: str, channel: str, project: str | None = None) -> Policy:
        """The project's own policy in this channel, else the channel's, else notify."""
        p = act_policies.c
        query = select(act_policies).where(p.team == team, p.channel == channel, p.project.in_(("", project or "")))
        with self.store.reading() as conn:
            rows = {r.project: r for r in conn.execute(query)}
        row = rows.get(project or "") or rows.get("")
        if row is None:
            return Policy("notify", DEFAULT_GRACE)
        return Policy(row.mode, timedelta(seconds=row.grace_s), row.set_by, row.project)

    # warnings

    def open_for(self, instance_ids: list[int]) -> dict[int, Warning]:
        if not instance_ids:
            return {}
        a = stop_actions.c
        query = select(stop_actions).where(a.instance_id.in_(instance_ids), a.status.in_(OPEN))
        with self.store.reading() as conn:
            return {r.instance_id: _warning(r) for r in conn.execute(query)}

    def warn(
        self,
        team: str,
        instance_id: int,
        channel: str,
        warned_at: datetime,
        deadline: datetime,
        message_ts: str | None,
        lang: str | None = None,
    ) -> Warning | None:
        """A new warning, unless one is open for the instance already (that one stands: None)."""
        a = stop_actions.c
        with self.store.writing() as conn:
            if conn.execute(select(a.id).where(a.instance_id == instance_id, a.status.in_(OPEN))).first():
                return None
            return _made(conn, team, instance_id, channel, warned_at, deadline, message_ts=message_ts, lang=lang)

    def ask(
        self,
        team: str,
        instance_id: int,
        channel: str,
        now: datetime,
        at: datetime,
        by: str,
        lang: str | None,
        *,
        remind: bool = False,
        once_idle: bool = False,
    ) -> tuple[Warning | None, Warning | None]:
        """A stop asked for at `at` by `by` (`remind`: its owner only reminded then, the bot stops nothing;
        `once_idle`: from `at` on, as soon as it is idle by the idle rule, bot/actions/due.py IDLE_WAIT at most):
        kept as a warning due then, which replaces the one open and not yet due to act (the idle policy's, or a time
        asked before: cancelled, detail `asked_again`). Returns (the new one, the one it replaced); (None, the open
        one) where a stop is already under way (asked of an agent, or its answer not yet said): nothing is kept."""
        a = stop_actions.c
        with self.store.writing() as conn:
            row = conn.execute(select(stop_actions).where(a.instance_id == instance_id, a.status.in_(OPEN))).first()
            before = _warning(row) if row is not None else None
            if before is not None and before.status != "warned":
                return None, before
            if before is not None:
                conn.execute(
                    update(stop_actions)
                    .where(a.id == before.id, a.status == "warned")
                    .values(status="cancelled", detail="asked_again", decided_at=now)
                )
            figures = {"remind": True} if remind else {"once_idle": True} if once_idle else None
            new = _made(conn, team, instance_id, channel, now, at, lang=lang, asked_by=by, figures=figures)
        return new, before

    def asked_for(self, instance_ids: list[int]) -> dict[int, Warning]:
        """The stops asked for at a time that have not come yet, by instance."""
        return {i: w for i, w in self.open_for(instance_ids).items() if w.asked_by and w.status == "warned"}

    def call_off(self, instance_id: int, now: datetime, by: str) -> Warning | None:
        """The stop asked for at a time, called off before it came (`训练机 不用关了`): the one cancelled, None where
        none was waiting."""
        a = stop_actions.c
        waiting = (a.instance_id == instance_id, a.status == "warned", a.asked_by.is_not(None))
        with self.store.writing() as conn:
            row = conn.execute(select(stop_actions).where(*waiting)).first()
            if row is None:
                return None
            called_off = {"status": "cancelled", "detail": "called_off", "decided_at": now, "figures": {"by": by}}
            conn.execute(update(stop_actions).where(*waiting).values(**called_off))
        return _warning(row)

    def due(self, now: datetime, agent_wait: timedelta) -> list[Warning]:
        """What the job has to do: warnings past their deadline, stops an agent has not answered within
        `agent_wait`, and agents' answers (done, agent_failed) not yet said in Slack."""
        a = stop_actions.c
        query = (
            select(stop_actions)
            .where(
                or_(
                    and_(a.status == "warned", a.deadline <= now),
                    and_(a.status == "requested", a.requested_at <= now - agent_wait),
                    a.status.in_(("done", "agent_failed")),
                )
            )
            .order_by(a.deadline)
        )
        with self.store.reading() as conn:
            return [_warning(r) for r in conn.execute(query)]

    def move(
        self,
        warning_id: int,
        expected: str,
        status: str,
        now: datetime,
        *,
        detail: str | None = None,
        figures: dict[str, Any] | None = None,
        attempt: bool = False,
    ) -> bool:
        """Set the status if it is still `expected` (one replica wins); False when it moved on already."""
        a = stop_actions.c
        values: dict[str, Any] = {"status": status}
        if detail is not None:
            values["detail"] = detail[:2000]
        if figures is not None:
            values["figures"] = figures
        if attempt:
            values["attempts"] = a.attempts + 1
        if status == "requested":
            values["requested_at"], values["handed_at"] = now, None  # asked again: handed afresh
        else:
            values["decided_at"] = now
        with self.store.writing() as conn:
            return bool(
                conn.execute(
                    update(stop_actions).where(a.id == warning_id, a.status == expected).values(**values)
                ).rowcount
            )

    def still_needed(self, instance_id: int, now: datetime) -> str | None:
        """Still needed, pressed for an instance with a stop under way: a stop asked of its agent and not taken yet
        is cancelled ("cancelled"); one its agent has run already cannot be undone ("too_late"); None when no stop
        was under way (a warning not yet due is judged again before any call, and the press counts there)."""
        a = stop_actions.c
        with self.store.writing() as conn:
            called_off = conn.execute(
                update(stop_actions)
                .where(a.instance_id == instance_id, a.status == "requested")
                .values(status="cancelled", detail="still_needed", decided_at=now)
            ).rowcount
            if called_off:
                return "cancelled"
            ran = conn.execute(
                select(a.decided_at).where(
                    a.instance_id == instance_id,
                    a.status.in_(("done", "stopped")),
                    a.decided_at >= now - OBJECTION_LATE,
                )
            ).first()
            # a box warned again since that stop (started again, idle again): the press is about the new warning
            warned_since = (
                ran is not None
                and conn.execute(
                    select(a.id).where(a.instance_id == instance_id, a.status == "warned", a.warned_at > ran.decided_at)
                ).first()
            )
        return "too_late" if ran and not warned_since else None

    def refused(self, instance_ids: list[int]) -> set[int]:
        """The instances whose cloud refused their stop for good (a failed stop marked refused): not warned again."""
        a, found = stop_actions.c, set()
        for start in range(0, len(instance_ids), 900):
            query = select(a.instance_id, a.figures).where(
                a.instance_id.in_(instance_ids[start : start + 900]), a.status == "failed"
            )
            with self.store.reading() as conn:
                found |= {int(row[0]) for row in conn.execute(query) if (row[1] or {}).get("refused")}
        return found

    def handed(self, warning_id: int, now: datetime) -> None:
        """A heartbeat's answer carries the stop to its agent: the first time is kept."""
        a = stop_actions.c
        with self.store.writing() as conn:
            conn.execute(update(stop_actions).where(a.id == warning_id, a.handed_at.is_(None)).values(handed_at=now))

    def requested_for(self, instance_id: int) -> Warning | None:
        """The stop an agent's box is asked for, if any (its heartbeat answer carries it)."""
        with self.store.reading() as conn:
            row = conn.execute(REQUESTED_FOR, {"b_id": instance_id}).first()
        return _warning(row) if row else None

    def get(self, warning_id: int) -> Warning | None:
        with self.store.reading() as conn:
            row = conn.execute(select(stop_actions).where(stop_actions.c.id == warning_id)).first()
        return _warning(row) if row else None

    def history(self, team: str | None = None, limit: int = 200, name: str | None = None) -> list[tuple[Warning, str]]:
        """The latest warnings and actions with their instance's name, newest first; `name`: that instance's only."""
        a, i = stop_actions.c, rental_instances.c
        query = select(stop_actions, i.name).join(rental_instances, i.id == a.instance_id)
        if team is not None:
            query = query.where(a.team == team)
        if name is not None:
            query = query.where(i.name == name)
        query = query.order_by(a.warned_at.desc(), a.id.desc()).limit(limit)
        with self.store.reading() as conn:
            return [(_warning(r), str(r.name)) for r in conn.execute(query)]
