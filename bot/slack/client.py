"""The Web API client the bot uses: slack_sdk's, giving way to acknowledgements before each call (the work
that follows a request then waits while another request is being acknowledged: bot/state/write_lock.py)."""

from __future__ import annotations

from typing import Any

from slack_sdk import WebClient

from bot.state.write_lock import ACKS


class YieldingClient(WebClient):
    def api_call(self, *args: Any, **kwargs: Any) -> Any:
        ACKS.yield_to_acks()
        return super().api_call(*args, **kwargs)
