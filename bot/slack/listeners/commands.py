"""`/gpu-advise [sub-command …]`: the slash command, run through the core's one table (bot/app/table.py) with
this request as its invocation; bad input gets an ephemeral error saying what was wrong and where the usage is."""

from __future__ import annotations

from bot.app import table
from bot.app.invocation import CommandError
from bot.deps import Deps
from bot.slack.invocation import invocation
from bot.slack.invocation import usage_text as usage_text
from bot.slack.markup import from_slack
from bot.slack.replies import lang_for
from bot.slack.request import SlackRequest
from bot.slack.ui import blocks
from bot.text import t


def on_command(deps: Deps, request: SlackRequest) -> None:
    """Start a profile, or run the sub-command the text names; bad input gets an ephemeral error."""
    lang = lang_for(request.client, deps, request.body["user_id"])
    try:
        table.run(invocation(deps, request, lang), from_slack(str(request.body.get("text") or "")))
    except CommandError as exc:
        message = str(exc)  # what was wrong, and where the usage is (not the whole usage again)
        request.respond(response_type="ephemeral", text=message, blocks=blocks.text(message, t("slack.see_help", lang)))
