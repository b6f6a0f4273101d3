"""The chats serve talks to, as one list of front doors: what each answers over HTTP, how it is doing for
/healthz, its wing for the clock (bot/server/chats.py), the work it kept and did not finish (redone at the start and
by the redo job), the work the work process takes for it, and its stop. `doors_of` is the one place that makes them
from the chats' setups (bot/server/chat_setups.py: a new chat is a folder and a line there)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from bot.web.answer import DoorRefused, Route

__all__ = ["DoorRefused", "FrontDoor", "Route", "doors_of"]

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from bot.deps import Deps
    from bot.server.chat_setups import ChatSetup
    from bot.server.chats import Wing
    from bot.text import Lang


class FrontDoor(Protocol):
    name: str  # as /healthz's checks.chats names it: "slack", "feishu"

    def routes(self) -> list[Route]:
        """What it answers over HTTP (none in a socket mode: its events come over its own connection)."""

    def health(self) -> dict[str, Any]:
        """For /healthz: its mode and state (a state starting with "failed" makes serve degraded)."""

    def wing(self) -> Wing:
        """It for the clock and the terminal: its teams' outlets, tellers and address books."""

    def replay(self, received_before: datetime | None = None, first: Callable[[str], bool] | None = None) -> int:
        """At start-up: the work of requests it kept and acknowledged before the last stop; how many."""

    def redo_stalled(self) -> int:
        """Work kept and left pending past GPU_ADVISOR_REDO_AFTER_S (its chat unreachable, its taker killed)."""

    def opened(self, raw: bytes, content_type: str | None) -> tuple[str, dict[str, Any]]:
        """A request it kept as it came (Deps.work.kept), read as its front door read it: its kind and body."""

    def take(self, key: str, kind: str, body: Any, workers: ThreadPoolExecutor) -> bool:
        """The work process's share: do the work of a kept request when it is this chat's kind; False when not."""

    def default_team(self) -> str | None:
        """The team to keep what discovery finds in when GPU_ADVISOR_DISCOVER_TEAM is not set, if it can say."""

    def check(self, lang: Lang) -> None:
        """At start-up: its credentials work (DoorRefused, in `lang`, saying what to fix)."""

    def start(self) -> None:
        """Open what it listens on besides HTTP (a long connection), on its own thread."""

    def stop(self) -> None:
        """Close it, finishing what it started."""


def doors_of(deps: Deps, lang: Lang, setups: list[ChatSetup]) -> list[FrontDoor]:
    """The front doors of the chats the settings turn on (bot/server/chat_setups.py), made once Deps are."""
    return [setup.door(deps, lang) for setup in setups]
