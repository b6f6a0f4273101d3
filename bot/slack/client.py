"""The Web API client the bot uses: slack_sdk's, giving way to acknowledgements before each call (the work
that follows a request then waits while another request is being acknowledged: bot/state/write_lock.py). The
gate is the process's, handed in (bot/deps.py)."""

from __future__ import annotations

from typing import Any

from slack_sdk import WebClient

from bot.state.write_lock import AckGate


class YieldingClient(WebClient):
    def __init__(self, *args: Any, acks: AckGate | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.acks = acks

    def api_call(self, *args: Any, **kwargs: Any) -> Any:
        if self.acks is not None:
            self.acks.yield_to_acks()
        return super().api_call(*args, **kwargs)
