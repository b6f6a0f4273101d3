"""The neutral text's spans (bot/text/spans.py) in Slack's mrkdwn: a person as <@U…>, a channel as <#C…>, a link as
<url|label>, data escaped (&, < and >, so `<!channel>` in a tag never pings); the catalogue's *bold*, _italic_ and
`code` are Slack's own. Every text the wing sends passes here once: the Web API client's payloads
(bot/slack/client.py), replies through a response_url (bot/slack/request.py) and a form's errors."""

from __future__ import annotations

import html
import re
from typing import Any

from bot.text.spans import Renderer, channel_ref, mention, render


def escape(text: object) -> str:
    """Slack's escaping of text that came from a user or a data file."""
    return html.escape(str(text), quote=False)  # &, < and > only: Slack's own three


SLACK = Renderer(
    mention=lambda user: f"<@{escape(user)}>",
    channel=lambda channel: f"<#{escape(channel)}>",
    link=lambda url, label: f"<{escape(url)}|{escape(label)}>",
    literal=escape,
)


def mrkdwn(text: str) -> str:
    return render(text, SLACK)


def in_slack(value: Any) -> Any:
    """A payload with each of its texts in mrkdwn (dicts and lists walked; everything else as it is)."""
    if isinstance(value, str):
        return mrkdwn(value) if "\ue000" in value else value
    if isinstance(value, dict):
        return {key: in_slack(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [in_slack(item) for item in value]
    return value


_PERSON = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
_CHANNEL = re.compile(r"<#([CG][A-Z0-9]+)(?:\|[^>]*)?>")


def from_slack(text: str) -> str:
    """What someone typed in Slack, as the neutral text: a mention as a person's span, a channel link as a channel's,
    and Slack's escaping undone (it sends a typed "<50ms" as "&lt;50ms")."""
    text = _PERSON.sub(lambda m: mention(m.group(1)), text)
    text = _CHANNEL.sub(lambda m: channel_ref(m.group(1)), text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
