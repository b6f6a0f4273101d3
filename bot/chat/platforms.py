"""The chats and their tenants' ids: which chat a team is of (by its id's prefix), the shape of its channels' ids,
and `register_chat`, the one line a chat's package adds. Apart from the chat port (bot/chat/port.py, which
re-exports it), so that a chat's package registers itself, and the settings find its area, without importing the
port's messages and logging: every terminal command that reads the settings paid for them (issue 50)."""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass

from bot.text.spans import mention, mentioned  # bot.text is loaded with the settings anyway


class Platform(str):
    """A chat's name ("slack", "feishu", …): one object a chat, so `is` compares them. A chat not built in names
    itself with `register_chat` (the one line a new chat's wing adds)."""

    SLACK: Platform
    FEISHU: Platform


Platform.SLACK, Platform.FEISHU = Platform("slack"), Platform("feishu")

# A tenant's id in the state tables (their `team` column): a Slack workspace's own id (T…, E…), any other chat's
# tenant behind its chat's prefix (Feishu's tenant key behind feishu:), so no two chats' rows meet and each row says
# whose it is.
FEISHU_PREFIX = "feishu:"
_PREFIXES: dict[str, Platform] = {FEISHU_PREFIX: Platform.FEISHU}


@dataclass(frozen=True)
class _Shapes:
    """How a chat's ids look (regular expressions), and how the terminal's messages say them (forms, not prose, as
    both languages show them)."""

    team_form: str  # "dingtalk:<corpId>"; empty for Slack, whose workspaces carry no prefix
    channel: re.Pattern[str] | None = None
    channel_form: str | None = None  # None: the chat's own message says it (Slack's, Feishu's)
    person: re.Pattern[str] | None = None  # Slack's member ids (U…, W…), Feishu's open_id (ou_…)
    person_form: str | None = None  # None: Slack's message says where its member ids are copied from


_CHATS: dict[str, _Shapes] = {
    "slack": _Shapes("", re.compile(r"[CG][A-Z0-9]{1,20}"), person=re.compile(r"[UW][A-Z0-9]{1,20}")),
    "feishu": _Shapes(
        "feishu:<tenant key>",
        re.compile(r"oc_[0-9A-Za-z]{1,64}"),
        person=re.compile(r"ou_[0-9a-z]{1,64}"),
        person_form="ou_…",
    ),
}


def register_chat(
    name: str,
    prefix: str,
    channel: str | None = None,
    team_form: str | None = None,
    channel_form: str | None = None,
    person: str | None = None,
    person_form: str | None = None,
) -> Platform:
    """A chat beside Slack and Feishu: its name, the prefix its teams' ids carry in the state (e.g. "dingtalk",
    "dingtalk:"), the shape of its channels' ids (a regular expression), so the terminal's --channel takes them,
    and how the terminal's messages name a team of it ("dingtalk:<corpId>") and a channel of it ("cid…,
    dm-<userId>"); likewise a person's id (`person` and `person_form`), so an owner can be named in it. The same
    object on every call for one name."""
    if not prefix.endswith(":") or prefix in ("", ":"):
        raise ValueError(f"a chat's prefix ends with ':' (got {prefix!r})")
    known = _PREFIXES.get(prefix)
    if known is not None:
        return known
    platform = Platform(name)
    _PREFIXES[prefix] = platform
    _CHATS[name] = _Shapes(
        team_form or f"{prefix}<id>",
        re.compile(channel) if channel is not None else None,
        channel_form,
        re.compile(person) if person is not None else None,
        person_form,
    )
    return platform


_SLACK_TEAM = re.compile(r"[TE][A-Z0-9]{1,20}")
_TEAM_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")
_loaded = False


def _prefix(prefix: str) -> Platform | None:
    """The chat a prefix names; the registered chats' folders are loaded once first, so a chat that registers
    itself in its package (bot/server/chat_setups.py lists them) is known before any of its modules is used."""
    global _loaded
    if prefix not in _PREFIXES and not _loaded:
        _loaded = True
        from bot.settings.chats import chat_packages

        for package in chat_packages():
            importlib.import_module(package)
    return _PREFIXES.get(prefix)


def _shapes(platform: str) -> _Shapes:
    return _CHATS.get(platform) or _Shapes("")


def person_of(platform: str, text: str) -> str | None:
    """The person `text` names in `platform`'s chat: a person's span as a chat hands a mention over (one
    bot/text/spans.py mark), or the id typed as it is, with or without a leading @; None when it names none (a
    name, an address, a formula)."""
    said = text.strip()
    spanned = mentioned(said)
    found = spanned[0] if len(spanned) == 1 and said == mention(spanned[0]) else said.removeprefix("@")
    shape = _shapes(platform).person
    return found if shape is not None and shape.fullmatch(found) else None


def person_form(platform: str) -> str | None:
    """How a person of `platform`'s chat is named, for the messages of every chat but Slack."""
    return _shapes(platform).person_form


def channel_form(team: str) -> str | None:
    """How a channel of `team`'s chat is given, for a chat that registered it; None for Slack and Feishu, whose
    messages say it themselves."""
    return _shapes(platform_of(team)).channel_form


def team_forms() -> str:
    """How the terminal's messages name a team of each chat that is not Slack ("feishu:<tenant key>, …")."""
    _prefix("")  # the registered chats' packages loaded, so each has said its form
    return ", ".join(shapes.team_form for shapes in _CHATS.values() if shapes.team_form)


def is_team(text: str) -> bool:
    """A team as the terminal and the settings take it: a Slack workspace or Enterprise Grid id (T…, E…), or another
    chat's key behind its registered prefix (a Feishu tenant's key behind feishu:, shown by the bot's `help` in
    Feishu and in serve's log)."""
    prefix, colon, key = text.partition(":")
    if not colon:
        return bool(_SLACK_TEAM.fullmatch(text))
    return _prefix(prefix + colon) is not None and bool(_TEAM_KEY.fullmatch(key))


def platform_of(team: str) -> Platform:
    """The chat a tenant belongs to, by its id's prefix (none: a Slack workspace)."""
    prefix, colon, _ = team.partition(":")
    return (_prefix(prefix + colon) or Platform.SLACK) if colon else Platform.SLACK


def channel_of(team: str, text: str) -> str | None:
    """`text` as a channel of `team`'s chat (a Slack channel C…/G…; a Feishu group chat oc_…, with or without its
    feishu: prefix or a leading #), or None when it names none: a mention, a user, a formula is no place to post."""
    platform = platform_of(team)
    found = text.strip().removeprefix(f"{platform}:").lstrip("#")
    shape = _shapes(platform).channel
    return found if shape is not None and shape.fullmatch(found) else None
