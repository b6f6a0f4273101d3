"""The Web API client the bot uses: slack_sdk's, giving way to acknowledgements before each call (the work
that follows a request then waits while another request is being acknowledged: bot/state/write_lock.py). The
gate is the process's, handed in (bot/deps.py). Every payload's texts are written in Slack's markup here."""

from __future__ import annotations

from typing import Any

from slack_sdk import WebClient

from bot.slack.markup import in_slack
from bot.state.write_lock import AckGate


def ours(client: WebClient) -> WebClient:
    """`client` as one of ours (bolt makes a plain WebClient for each request): the same token, address, timeout,
    retries and team, with every payload's texts in Slack's markup."""
    if isinstance(client, YieldingClient):
        return client
    return YieldingClient(
        token=client.token,
        base_url=client.base_url,
        timeout=client.timeout,
        ssl=client.ssl,
        proxy=client.proxy,
        headers=client.headers,
        team_id=getattr(client, "team_id", None),
        logger=client.logger,
        retry_handlers=client.retry_handlers,
    )


class YieldingClient(WebClient):
    def __init__(self, *args: Any, acks: AckGate | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.acks = acks

    def api_call(self, *args: Any, **kwargs: Any) -> Any:
        if self.acks is not None:
            self.acks.yield_to_acks()
        for part in ("json", "params", "data"):  # the neutral text's spans, in Slack's markup (markup.py)
            if isinstance(kwargs.get(part), dict):
                kwargs[part] = in_slack(kwargs[part])
        return super().api_call(*args, **kwargs)
