"""A bug met doing what a person asked, in a chat whose work is redone when it fails (Feishu, DingTalk, WeCom; Slack's
errors go to bolt's handler): said to them with an id the log has, and the work taken as done. Left uncaught it was
kept to be redone, failing again at each redo for the hour a frame is redone, while the person heard nothing (a
typed sub-command, a button pressed, an answer to a profile's question, a file sent). A chat or the state that
cannot be reached is no bug: it is raised, and the work redone once they are back."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from bot.chat.port import ChatError
from bot.state.store import StoreUnavailable
from bot.text import Lang, t

# what a redo may get past: the chat or the state out of reach, a socket or a file
REDONE: tuple[type[Exception], ...] = (ChatError, StoreUnavailable, OSError)
log = logging.getLogger(__name__)


def taken_or_bug(take: Callable[[], bool], say: Callable[[str], object], lang: Lang, what: str) -> bool:
    """`take()`'s answer (whether a message was taken, as a profile's answer); True where a bug met in it was said:
    the message is read no further (it was read on as a sub-command after the bug)."""
    with bug_said(say, lang, what):
        return take()
    return True


@contextmanager
def bug_said(say: Callable[[str], object], lang: Lang, what: str) -> Iterator[None]:
    """Run the block; a bug in it is logged with an id and said through `say` (to the person, in `lang`). `what`
    names the work in the log ("a sub-command", "a button press")."""
    try:
        yield
    except REDONE:
        raise
    except Exception:
        ref = uuid.uuid4().hex[:8]
        log.exception("unexpected error (error id %s) in %s", ref, what)
        say(t("slack.error", lang, ref=ref))
