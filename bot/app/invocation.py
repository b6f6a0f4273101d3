"""A sub-command as any chat hands it to the core: who typed it, where, in which language, and how to answer.
The sub-commands (bot/app/table.py names them all) parse and answer the same on every chat; a chat's wing builds
the Invocation from its own request (bot/slack/invocation.py, bot/feishu/events.py) and fills in what only it can
do: answer one person privately, open a form, reach the channel's teller, say its own help."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.chat.message import Message
from bot.chat.port import Chat, Teller
from bot.deps import Deps
from bot.text import Lang


class CommandError(Exception):
    """Bad input to a sub-command: the sentence, in the user's language (what was wrong, what is accepted)."""


def channel_zone(deps: Deps, team: str, channel: str) -> ZoneInfo:
    """A channel's clock (Invocation.channel_zone), where no invocation is at hand (a submitted form)."""
    from bot.state.schedules import Schedules

    default = deps.settings.digest.default_schedule()
    return ZoneInfo(Schedules(deps.store, default).of(team, channel).zone)


class Form(StrEnum):
    """The forms a chat opens: the five questions at once, and tracking an instance (pre-filled)."""

    PROFILE = "profile"
    TRACK = "track"


@dataclass
class Invocation:
    deps: Deps
    team: str  # the tenant: a Slack workspace (T…), a Feishu tenant behind its prefix (feishu:…)
    channel: str
    user: str
    lang: Lang
    answer: Callable[[Message], object]  # to the person who typed it (Slack: ephemeral; Feishu: in its thread)
    post: Callable[[Message], object]  # a new message in the channel, for everyone
    is_admin: Callable[[], bool]  # may this person act as an admin of the team (or of this chat)?
    zone: Callable[[], str | None]  # this person's IANA time zone, when the chat knows it
    chat: Chat  # the chat it came from, as the port (profiles, direct messages)
    # where it was typed, for everyone there (Slack: the command's channel; Feishu: the thread under the message)
    announce: Callable[[Message], object]
    # to the person alone, for what others must not see (a token): Slack ephemeral, Feishu a direct message
    privately: Callable[[Message], object]
    teller: Callable[[], Teller]  # the channel's teller: reports and their charts
    open_form: Callable[[Form, dict[str, str]], None]  # a form, pre-filled
    help_text: Callable[[Lang], str]  # the chat's own `help`: how its people type the sub-commands
    channel_name: str = ""  # the channel as a line names it (Slack: a link to it; Feishu: "this chat")
    # the channel as a link any of the team can follow from elsewhere (Slack's); empty where the chat has none, and
    # a line read outside the channel (a direct message) names no place rather than "this chat"
    channel_link: str = ""
    request_key: str | None = None  # the inbox key of the request: a redo finishes what was started
    reply_to: str | None = None  # the person's message, where the chat threads answers under it (Feishu)
    direct: bool = False  # typed in the person's direct chat with the bot, not a channel of the team

    def channel_zone(self) -> ZoneInfo:
        """The channel's clock: its digest's zone (`remind at … ZONE`), else GPU_ADVISOR_REMIND_TZ; the month of its
        bills and budgets starts at midnight there."""
        return channel_zone(self.deps, self.team, self.channel)

    def past(self, said: str | None, now: datetime, field: str = "at") -> tuple[datetime, ZoneInfo | None]:
        """A past time this person typed (`at=`, `started=`, `created=`; bot/fields/moments.py), read on their clock,
        with that clock; `now` and no clock when none is given (the chat is asked for the clock only then: Slack
        answers it through users.info). FieldError naming `field` for words that are not a past time up to `now`."""
        from bot.fields.moments import moment_of

        if said is None:
            return now, None
        zone = self.clock_zone()
        return moment_of(said, self.lang, now, zone, field=field), zone

    def clock_zone(self) -> ZoneInfo:
        """The clock a time this person types is read on: theirs where the chat knows it, else the channel's."""
        mine = self.zone()
        return ZoneInfo(mine) if mine else self.channel_zone()
