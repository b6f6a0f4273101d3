"""Conversations: one profile being answered in a Slack thread, a form or a DM, with its answers."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select, update

from bot.state.schema import conversations
from bot.state.store import Store


@dataclass
class Conversation:
    id: str
    team: str
    channel: str
    thread_ts: str | None
    user: str
    lang: str
    answers: dict[str, str] = field(default_factory=dict)  # the text given; "" means skipped
    values: dict[str, Any] = field(default_factory=dict)  # the parsed answers, as JSON
    step: int = 0
    status: str = "active"
    question_ts: str | None = None
    note: str | None = None
    warned_others: bool = False
    last_input: str | None = None  # the inbox key of the last answer applied (so a redo does not apply it twice)
    asking: str | None = None  # the key of the message being posted (a redo looks for it before posting again)
    asking_at: datetime | None = None  # when that post began (a redo soon after waits for it to settle)
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    updated_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    @classmethod
    def from_row(cls, row: Any) -> Conversation:
        data = dict(row._mapping)
        data["values"] = data.pop("answer_values") or {}
        data["warned_others"] = bool(data["warned_others"])
        return cls(**data)

    def row(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "team": self.team,
            "channel": self.channel,
            "thread_ts": self.thread_ts,
            "user": self.user,
            "lang": self.lang,
            "answers": self.answers,
            "answer_values": self.values,
            "step": self.step,
            "status": self.status,
            "question_ts": self.question_ts,
            "note": self.note,
            "warned_others": self.warned_others,
            "last_input": self.last_input,
            "asking": self.asking,
            "asking_at": self.asking_at,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


class Conversations:
    def __init__(self, store: Store) -> None:
        self.store = store

    def create(
        self,
        *,
        team: str,
        channel: str,
        user: str,
        lang: str,
        answers: dict[str, str] | None = None,
        values: dict[str, Any] | None = None,
        status: str = "active",
    ) -> Conversation:
        stamp = self.store.now()
        convo = Conversation(
            id=uuid.uuid4().hex,
            team=team,
            channel=channel,
            thread_ts=None,
            user=user,
            lang=lang,
            answers=answers or {},
            values=values or {},
            status=status,
            created_at=stamp,
            updated_at=stamp,
        )
        with self.store.writing() as conn:
            conn.execute(insert(conversations).values(**convo.row()))
        return convo

    def save(self, convo: Conversation) -> None:
        convo.updated_at = self.store.now()
        row = convo.row()
        del row["id"], row["created_at"]
        with self.store.writing() as conn:
            conn.execute(update(conversations).where(conversations.c.id == convo.id).values(**row))

    def get(self, convo_id: str, team: str | None = None) -> Conversation | None:
        """A conversation by id; with `team`, only if it belongs to that team (a request from one
        team never reaches another's conversation)."""
        query = select(conversations).where(conversations.c.id == convo_id)
        if team is not None:
            query = query.where(conversations.c.team == team)
        with self.store.reading() as conn:
            row = conn.execute(query).first()
        return Conversation.from_row(row) if row else None

    def by_thread(self, team: str, channel: str, thread_ts: str) -> Conversation | None:
        query = (
            select(conversations)
            .where(
                conversations.c.team == team, conversations.c.channel == channel, conversations.c.thread_ts == thread_ts
            )
            .order_by(conversations.c.created_at.desc())
            .limit(1)
        )
        with self.store.reading() as conn:
            row = conn.execute(query).first()
        return Conversation.from_row(row) if row else None

    def open_for(self, team: str, channel: str, user: str) -> Conversation | None:
        """The profile `user` has open in `channel` (the latest still being answered): how a chat without threads
        (DingTalk) knows what a typed reply answers."""
        query = (
            select(conversations)
            .where(
                conversations.c.team == team,
                conversations.c.channel == channel,
                conversations.c.user == user,
                conversations.c.status == "active",
            )
            .order_by(conversations.c.created_at.desc())
            .limit(1)
        )
        with self.store.reading() as conn:
            row = conn.execute(query).first()
        return Conversation.from_row(row) if row else None
