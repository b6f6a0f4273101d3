"""A sender's own pace under a chat's limits for one conversation (WeCom: 30 messages a minute and 1,000 an hour
to a member or chat, dropped silently past them; DingTalk: a robot's 20 a minute to a group): the sends to each
conversation in the last hour are kept; a send waits while the minute's are at the limit (said in the log) and is
refused when the hour's are (said in the log: what was held back)."""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable

from bot.chat.port import ChatError

log = logging.getLogger(__name__)


class Pacer:
    def __init__(
        self,
        per_minute: int,
        per_hour: int | None,
        chat: str,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.per_minute, self.per_hour, self.chat = per_minute, per_hour, chat
        self.clock, self.sleep = clock, sleep
        self.sent: dict[str, collections.deque[float]] = collections.defaultdict(collections.deque)
        self.lock = threading.Lock()

    def take(self, conversation: str) -> None:
        """Wait until a message may go to `conversation`; ChatError("paced_hour") when this hour's are spent."""
        kept = 3600.0 if self.per_hour is not None else 60.0
        while True:
            with self.lock:
                now, sent = self.clock(), self.sent[conversation]
                while sent and sent[0] <= now - kept:
                    sent.popleft()
                if self.per_hour is not None and len(sent) >= self.per_hour:
                    log.warning("held back a message to %s: %d sent there this hour (%s's limit)",
                                conversation, self.per_hour, self.chat)  # fmt: skip
                    raise ChatError("paced_hour")
                last_minute = [at for at in sent if at > now - 60]
                if len(last_minute) < self.per_minute:
                    sent.append(now)
                    return
                wait = last_minute[0] + 60 - now
            log.info("holding a message to %s for %.0f s: %d sent there this minute (%s's limit)",
                     conversation, wait, self.per_minute, self.chat)  # fmt: skip
            self.sleep(wait)
