"""The Teller port on Feishu: lines as cards (a reply in the thread under a message, or a message in the chat),
a direct message to an open_id, a chart uploaded as an image (im/v1/images) and shown in the thread. A digest's
card cannot be read back, so a note on an item goes in the card's thread."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import ClassVar

from bot.chat.message import plain
from bot.chat.port import Actor, ChatError, Place, Platform
from bot.feishu.chat import FeishuChat
from bot.feishu.sdk import FeishuError
from bot.text import Lang


@dataclass
class FeishuTeller:
    chat: FeishuChat
    lang: Lang
    takes_files: ClassVar[bool] = True  # a chart as an image, anything else as a file

    def say(self, channel: str, text: str, *, thread: str | None = None, link_previews: bool = True) -> str:
        place = Place(Platform.FEISHU, "", channel, thread)
        return self.chat.post(place, lambda each: plain(text, each), self.lang).id

    def direct(self, user: str, text: str) -> None:
        self.chat.direct(Actor(Platform.FEISHU, "", user), lambda each: plain(text, each), self.lang)

    def upload(self, channel: str, thread: str, name: str, data: bytes, title: str) -> str | None:
        """A chart (.png) as an image in the thread (im/v1/images), anything else as a file (im/v1/files); the
        image's or file's key."""
        api = self.chat.api
        im = api.sdk.im
        try:
            if name.endswith(".png"):
                body = im.CreateImageRequestBody.builder().image_type("message").image(io.BytesIO(data)).build()
                made = api.call(
                    "images.create",
                    lambda: api.im.image.create(im.CreateImageRequest.builder().request_body(body).build()),
                )
                key, kind, content = str(made.image_key), "image", {"image_key": str(made.image_key)}
            else:
                body = (
                    im.CreateFileRequestBody.builder()
                    .file_type("stream")
                    .file_name(name)
                    .file(io.BytesIO(data))
                    .build()
                )
                made = api.call(
                    "files.create",
                    lambda: api.im.file.create(im.CreateFileRequest.builder().request_body(body).build()),
                )
                key, kind, content = str(made.file_key), "file", {"file_key": str(made.file_key)}
            reply = (
                im.ReplyMessageRequest.builder()
                .message_id(thread)
                .request_body(
                    im.ReplyMessageRequestBody.builder()
                    .msg_type(kind)
                    .content(json.dumps(content))
                    .reply_in_thread(True)
                    .build()
                )
                .build()
            )
            api.call("messages.reply", lambda: api.im.message.reply(reply))
        except FeishuError as exc:
            raise ChatError(str(exc.code)) from exc
        return key

    def note_item(self, channel: str, message_id: str, name: str, text: str, *, keep_item: bool) -> bool:
        return False

    def lang_of(self, user: str) -> Lang:
        return self.lang
