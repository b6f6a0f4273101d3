"""Who set something, as chat names them (issue 34.13): the terminal and the bot by name, never as a mention of a
user called "terminal"; a user id as a mention, escaped so it cannot ping the channel."""

from __future__ import annotations

from bot.feishu.markup import markdown
from bot.slack.markup import mrkdwn
from bot.text import Lang
from bot.text.format import who


def test_the_terminal_and_the_bot_are_named_and_users_are_mentioned() -> None:
    assert who("terminal", Lang.EN) == "someone at the terminal" and who("terminal", Lang.ZH) == "终端上的操作者"
    assert who("bot", Lang.EN) == "the bot" and who("", Lang.EN) == "?" and who(None, Lang.ZH) == "?"
    assert mrkdwn(who("U0456", Lang.EN)) == "<@U0456>"  # as Slack shows it
    assert mrkdwn(who("<!channel>", Lang.EN)) == "<@&lt;!channel&gt;>"
    assert markdown(who("U0456", Lang.EN)) == "<at id=U0456></at>"  # as Feishu shows it
