"""The Teller port on Slack: plain lines with chat.postMessage, files with files upload v2, a note on a digest's
item by reading the message back (conversations.history) and chat.update; Slack's errors become ChatError."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.chat.port import ChatError
from bot.deps import Deps
from bot.slack.replies import lang_for
from bot.slack.ui.blocks import context
from bot.text import Lang

log = logging.getLogger(__name__)


def _failed(exc: Exception) -> ChatError:
    code = str(exc.response.get("error", "unknown")) if isinstance(exc, SlackApiError) else type(exc).__name__
    return ChatError(code)


class SlackTeller:
    takes_files = True  # files.upload (files_upload_v2)

    def __init__(self, client: WebClient, lang_of: Callable[[str], Lang]) -> None:
        self.client, self._lang_of = client, lang_of

    def say(self, channel: str, text: str, *, thread: str | None = None, link_previews: bool = True) -> str:
        extra: dict[str, Any] = {"thread_ts": thread} if thread else {}
        if not link_previews:
            extra["unfurl_links"] = False
        try:
            answer = self.client.chat_postMessage(channel=channel, text=text, **extra)
        except (SlackApiError, OSError) as exc:
            raise _failed(exc) from exc
        return str(answer.get("ts", ""))

    def direct(self, user: str, text: str) -> None:
        self.say(user, text)

    def upload(self, channel: str, thread: str, name: str, data: bytes, title: str) -> str | None:
        try:
            uploaded = self.client.files_upload_v2(
                channel=channel, thread_ts=thread, content=data, filename=name, title=title
            )
        except (SlackApiError, OSError) as exc:
            raise _failed(exc) from exc
        files = uploaded.get("files") or ([uploaded["file"]] if uploaded.get("file") else [])
        return str(files[0]["id"]) if files and files[0].get("id") else None

    def note_item(self, channel: str, message_id: str, name: str, text: str, *, keep_item: bool) -> bool:
        try:
            found = self.client.conversations_history(channel=channel, latest=message_id, inclusive=True, limit=1)
            message = next((m for m in found.get("messages") or [] if m.get("ts") == message_id), None)
            if not message or not message.get("blocks"):
                return False
            note = context(text[:3000])
            if not any(block.get("block_id") == f"item:i:{name}" for block in message["blocks"]):
                return False  # answered already (Still needed, Released): said in the thread
            blocks: list[dict[str, Any]] = []
            for block in message["blocks"]:
                if block.get("block_id") == f"item:i:{name}":
                    blocks += [block, *note] if keep_item else note
                elif keep_item or block.get("block_id") != f"act:i:{name}":
                    blocks.append(block)
            self.client.chat_update(
                channel=channel, ts=message_id, blocks=blocks, text=str(message.get("text") or text)
            )
        except SlackApiError as exc:
            log.info("digest %s not updated (%s): said in its thread", message_id, exc.response.get("error"))
            return False
        return True

    def lang_of(self, user: str) -> Lang:
        return self._lang_of(user)


def slack_tellers(deps: Deps, client: WebClient) -> Callable[[str], SlackTeller]:
    """Each workspace's teller: its own installation's client (OAuth), else `client`. LookupError: uninstalled."""

    def teller(team: str) -> SlackTeller:
        own = deps.client_of(team, client)
        return SlackTeller(own, lambda user: lang_for(own, deps, user))

    return teller
