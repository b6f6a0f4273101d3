"""The core's identifiers, the same on every chat: what a button does (its action id) and the sub-commands."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class Action(StrEnum):
    ANSWER = "answer"  # prefix: answer:<n>, one per button
    SKIP = "skip"
    CHANGE = "change_answers"
    RESTART = "start_over"
    NEW_PROFILE = "new_profile"
    # the digest's buttons (bot/slack/ui/digest.py); the value is the item's name
    RELEASED = "rental_released"
    STILL_NEEDED = "rental_still_needed"
    SNOOZE_WEEK = "rental_snooze_week"
    STOPPED = "rental_stopped"  # off from the press: an hourly meter stops (rules/metering.py)
    STARTED = "rental_started"  # on again from the press (an item stopped but still billed shows it)
    STORAGE_DELETED = "storage_deleted"
    STORAGE_KEEP = "storage_keep"
    CLAIM = "found_claim"  # "Found, not tracked": the presser becomes the owner (the block id says i or s)
    NOT_OURS = "found_not_ours"  # an admin hides it from digests and lists
    RENTED = "rented"  # on a recommendation: open the track form, pre-filled
    FROM_MODEL = "memory_from_model"  # question 2: ask for the model to estimate the memory from


class ButtonValue(BaseModel):
    """What a profile's button carries: the conversation, the question, and the answer (None: skip)."""

    model_config = ConfigDict(frozen=True)

    c: str
    k: str = ""
    v: str | None = None


class SubCommand(StrEnum):
    HELP = "help"
    ANALYZE = "analyze"
    FORM = "form"
    PRICES = "prices"
    QUOTE = "quote"
    REMIND = "remind"
    LIST = "list"
    RELEASE = "release"
    DELETE_STORAGE = "delete-storage"
    RENAME = "rename"
    BUDGET = "budget"
    POWER = "power"
    BILLING = "billing"
    BALANCE = "balance"
    TRACK = "track"
    ENROLL = "enroll"
    ACT = "act"
    REPORT = "report"
    BOARD = "board"
    ACTIONS = "actions"
    IDLE = "idle"
    STOP = "stop"
