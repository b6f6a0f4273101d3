"""`/gpu-advise list`, `release NAME`, `delete-storage NAME`, `remind …` and `budget …` in Slack: the core's
sub-commands (bot/chat/rental_commands.py) with this request as their invocation."""

from __future__ import annotations

from collections.abc import Callable

from bot.chat import meter_commands, rental_commands
from bot.chat.commands import CommandError, Invocation
from bot.chat.message import Message
from bot.deps import Deps
from bot.slack.listeners.digest import is_admin
from bot.slack.replies import zone_for
from bot.slack.request import SlackRequest
from bot.slack.ui import blocks
from bot.slack.ui.digest import item_blocks
from bot.text import Lang

RentalCommandError = CommandError  # what the other rentals sub-commands (track, act, report, …) raise


def command_blocks(message: Message) -> list[dict[str, object]]:
    """A sub-command's answer as blocks: its lines, and a digest item's line with its buttons."""
    out: list[dict[str, object]] = []
    for section in message.sections:
        if section.item is not None:
            out += item_blocks(*section.item, section.text, message.lang)
        else:
            out += blocks.text(section.text)
    return out


def invocation(deps: Deps, request: SlackRequest, lang: Lang) -> Invocation:
    user, channel = request.user or "", request.channel or ""

    def answer(message: Message) -> None:
        request.respond(response_type="ephemeral", text=message.text, blocks=command_blocks(message))

    def post(message: Message) -> None:
        request.client.chat_postMessage(channel=channel or user, text=message.text, blocks=command_blocks(message))

    return Invocation(
        deps,
        team=request.team,
        channel=channel,
        user=user,
        lang=lang,
        answer=answer,
        post=post,
        is_admin=lambda: is_admin(request.client, user, request.team),
        zone=lambda: zone_for(request.client, deps, user),
    )


def _with_args(run: Callable[[Invocation, list[str]], None]) -> Callable[[Deps, SlackRequest, list[str], Lang], None]:
    return lambda deps, request, args, lang: run(invocation(deps, request, lang), args)


def on_list(deps: Deps, request: SlackRequest, lang: Lang) -> None:
    rental_commands.list_items(invocation(deps, request, lang))


on_release = _with_args(rental_commands.release)
on_delete_storage = _with_args(rental_commands.delete_storage)
on_remind = _with_args(rental_commands.remind)
on_budget = _with_args(rental_commands.budget)
on_power = _with_args(meter_commands.power)
on_billing = _with_args(meter_commands.billing)
on_balance = _with_args(meter_commands.balance)
