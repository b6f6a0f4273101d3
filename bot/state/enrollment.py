"""Enrollment: a GPU box registers itself with an enrollment token instead of someone typing `track`.

An enrollment token names the team, channel, owner and project the boxes it enrolls belong to; it
expires and has a number of uses. Only its SHA-256 hash is kept (it is random, so a plain hash is
enough), like the heartbeat tokens. Enrolling spends one use and, in the same transaction, either
makes the instance (source "agent") or, for a machine id already enrolled in the team and not
released, gives that instance back with a fresh heartbeat token (the old one stops working).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from bot.state.rentals import Instance, RentalError, Rentals, check_name, check_numbers, new_token, token_hash
from bot.state.schema import enroll_tokens, rental_instances
from bot.state.store import Store

ON_STOP = "shutdown -h now"  # a rented box's power-off (AutoDL's own shutdown; a VM's, run as root)


def agent_command(url: str, token: str) -> str:
    """The command to paste on a GPU box: enrolls on its first run, then heartbeats (`--enroll` may stay), and
    can act on a stop the channel turns on (`act stop`): without `--on-stop` a box could never be stopped."""
    state = "/var/lib/gpu-advisor/agent.json"
    return f"gpu-advise agent --url {url} --enroll {token} --state-file {state} --on-stop '{ON_STOP}'"


class EnrollRefused(Exception):
    """Why an enrollment was refused: `status` (401 for the token, 409 for a taken name) and the reason."""

    def __init__(self, status: int, reason: str, **params: str) -> None:
        super().__init__(reason)
        self.status, self.reason, self.params = status, reason, params


@dataclass(frozen=True)
class Grant:
    """What an enrollment token gives: where the boxes it enrolls belong."""

    team: str
    channel: str
    owner: str
    project: str | None
    uses_left: int
    expires_at: datetime
    created_by: str = ""  # a chat user, or "terminal" (the operator)


@dataclass(frozen=True)
class Box:
    """What an agent says about its machine when it enrolls."""

    name: str
    machine_id: str
    gpu: str  # the canonical model, or the driver's name when the catalogue does not know it
    cards: int
    provider_id: str | None = None


class Enrollments:
    def __init__(self, store: Store) -> None:
        self.store = store

    def issue(self, grant: Grant, *, created_by: str, now: datetime, request_key: str | None = None) -> str:
        """A new enrollment token (shown once). A Slack request made again (its reply was not delivered)
        replaces the token it made the first time, so only the delivered one works."""
        check_numbers({"expires_at": grant.expires_at})
        token = new_token()
        row = {
            "token_hash": token_hash(token),
            "team": grant.team,
            "channel": grant.channel,
            "owner": grant.owner,
            "project": grant.project,
            "uses_left": grant.uses_left,
            "expires_at": grant.expires_at,
            "created_by": created_by,
            "created_at": now,
            "request_key": request_key,
        }
        with self.store.writing() as conn:
            if request_key is not None:
                conn.execute(delete(enroll_tokens).where(enroll_tokens.c.request_key == request_key))
            conn.execute(insert(enroll_tokens).values(**row))
        return token

    def grant(self, token: str, now: datetime) -> Grant:
        """What a token gives, or EnrollRefused(401) when it is unknown, expired or used up."""
        with self.store.reading() as conn:
            row = conn.execute(select(enroll_tokens).where(enroll_tokens.c.token_hash == token_hash(token))).first()
        return _usable(row, now)

    def enroll(self, token: str, box: Box, price: dict[str, Any], now: datetime) -> tuple[Instance, str]:
        """Spend one use of `token` and make (or give back) `box`'s instance; returns it and its new
        heartbeat token. `price`: the instance's unit, price and currency (price None: not known)."""
        check_name(box.name)
        check_numbers(price)
        heartbeat = new_token()
        c, e = rental_instances.c, enroll_tokens.c
        try:
            with self.store.writing() as conn:
                grant = _usable(
                    conn.execute(select(enroll_tokens).where(e.token_hash == token_hash(token))).first(), now
                )
                conn.execute(
                    update(enroll_tokens).where(e.token_hash == token_hash(token)).values(uses_left=e.uses_left - 1)
                )
                again = conn.execute(
                    select(c.id, c.owner).where(
                        c.team == grant.team, c.machine_id == box.machine_id, c.released_at.is_(None)
                    )
                ).first()
                if again is not None and again.owner != grant.owner and grant.created_by != "terminal":
                    # a machine_id is only the box's claim: another person's grant never takes over her instance
                    # (renaming it, revoking her agent's token); the operator's (terminal) token may
                    raise EnrollRefused(409, "machine_taken")
                found = _discovered(conn, grant.team, box.provider_id) if again is None else None
                if found is not None and found.owner and found.owner != grant.owner and grant.created_by != "terminal":
                    # the cloud's id is only the box's claim too: another person's grant never takes over an instance
                    # someone owns (its agent's token revoked); the operator's (terminal) token may
                    raise EnrollRefused(409, "machine_taken")
                if again is not None:
                    conn.execute(
                        update(rental_instances)
                        .where(c.id == again.id)
                        .values(
                            token_hash=token_hash(heartbeat),
                            name=box.name,
                            gpu=box.gpu,
                            cards=box.cards,
                            provider_id=box.provider_id or c.provider_id,
                        )
                    )
                elif found is not None:  # the cloud instance discovery found: one item; an owner it has (a tag,
                    # a Claim) keeps it and its channel, else the token's owner and channel take it
                    owned = bool(found.owner)
                    conn.execute(
                        update(rental_instances)
                        .where(c.id == found.id)
                        .values(
                            token_hash=token_hash(heartbeat),
                            machine_id=box.machine_id,
                            owner=found.owner if owned else grant.owner,
                            channel=found.channel if owned else grant.channel,
                            project=found.project or grant.project,
                        )
                    )
                else:
                    conn.execute(
                        insert(rental_instances).values(
                            team=grant.team,
                            name=box.name,
                            channel=grant.channel,
                            owner=grant.owner,
                            project=grant.project,
                            gpu=box.gpu,
                            cards=box.cards,
                            **price,
                            token_hash=token_hash(heartbeat),
                            started_at=now,
                            source="agent",
                            provider_id=box.provider_id,
                            machine_id=box.machine_id,
                        )
                    )
        except IntegrityError:
            raise EnrollRefused(409, "name_taken", name=box.name) from None
        found = Rentals(self.store).by_token(heartbeat)
        if found is None:  # released between the write and this read: nothing to give back
            raise RentalError("no_instance", name=box.name)
        return found, heartbeat


def _discovered(conn: Any, team: str, provider_id: str | None) -> Any:
    """The running item discovery keeps for this cloud id in the team, if any."""
    if not provider_id:
        return None
    c = rental_instances.c
    return conn.execute(
        select(c.id, c.owner, c.channel, c.project).where(
            c.team == team, c.provider_id == provider_id, c.released_at.is_(None)
        )
    ).first()


def _usable(row: Any, now: datetime) -> Grant:
    if row is None:
        raise EnrollRefused(401, "unknown_token")
    if row.expires_at <= now:
        raise EnrollRefused(401, "expired_token", at=row.expires_at.isoformat(timespec="minutes"))
    if row.uses_left <= 0:
        raise EnrollRefused(401, "used_up_token")
    return Grant(row.team, row.channel, row.owner, row.project, row.uses_left, row.expires_at, row.created_by)
