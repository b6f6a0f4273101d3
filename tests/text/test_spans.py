"""The neutral text's spans (bot/text/spans.py): a person, a channel, a link and data, written by each chat its own
way, and no chat's markup left in the core or the catalogue (issue 46)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from bot.feishu.markup import markdown
from bot.slack.markup import from_slack, mrkdwn
from bot.text import Lang, t
from bot.text.spans import OPEN, channel_ref, link, literal, mention, mentioned, plain_text

ROOT = Path(__file__).parents[2]
HOSTILE = "<!channel> & <@U9> <https://evil|x> <at id=all></at>"


def test_each_chat_writes_each_span_its_own_way() -> None:
    text = f"*{literal('ckpt')}* of {mention('U1')} in {channel_ref('C1')}: {link('https://example.com/a b', 'docs')}"
    assert mrkdwn(text) == "*ckpt* of <@U1> in <#C1>: <https://example.com/a%20b|docs>"
    assert markdown(text) == "**ckpt** of <at id=U1></at> in this chat: [docs](https://example.com/a%20b)"
    assert markdown(channel_ref("oc_1"), Lang.ZH) == "本群"  # Feishu links no chat: a line names its own
    assert plain_text(text) == "*ckpt* of @U1 in #C1: docs (https://example.com/a%20b)"


def test_data_never_pings_links_or_writes_markup_in_any_chat() -> None:
    shown = literal(HOSTILE)
    slack, feishu = mrkdwn(shown), markdown(shown)
    assert "<!" not in slack and "<@" not in slack and "<http" not in slack and "&lt;!channel&gt; &amp;" in slack
    assert "<at" not in feishu and "&lt;at id=all&gt;" in feishu
    assert plain_text(shown) == HOSTILE  # the terminal shows it as it is
    assert mrkdwn(mention("<!here>")) == "<@&lt;!here&gt;>"  # a hostile id stays inside its mention


def test_data_cannot_forge_a_span() -> None:
    forged = f"x{OPEN}@U1\ue001y"
    assert mrkdwn(literal(forged)) == "x@U1y" and mentioned(literal(forged)) == []


def test_a_quoted_datum_stays_data() -> None:
    said = t("ask.parse_error", Lang.EN, text=literal("<!channel> soon"), problem="?", accepted="a")
    assert mrkdwn(said).startswith("Could not read '&lt;!channel&gt; soon'")
    assert plain_text(said).startswith("Could not read '<!channel> soon'")


def test_what_slack_sends_becomes_the_neutral_text() -> None:
    typed = from_slack("track box owner=<@U123|bob> in <#C9|general> p99 &lt;50ms &amp; more")
    assert mentioned(typed) == ["U123"] and plain_text(typed) == "track box owner=@U123 in #C9 p99 <50ms & more"


CORE = ("bot/app", "bot/chat", "bot/digest", "bot/report", "bot/actions", "bot/text", "rules")
SLACK_MARKUP = re.compile(r"<[@#!](?:[A-Z{]|channel|here|everyone)|<https?://[^>]*\|")


def _prose(path: Path) -> set[int]:
    """The lines of a module's docstrings and comments: they may name a chat's markup, as documentation."""
    source = path.read_text("utf-8")
    lines = {n for n, line in enumerate(source.splitlines(), 1) if line.lstrip().startswith("#")}
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            lines |= set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def test_no_chat_markup_is_written_in_the_core_or_the_catalogue() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in CORE
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in (".py", ".yaml")
        for prose in [_prose(path) if path.suffix == ".py" else set()]
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if SLACK_MARKUP.search(line) and number not in prose
    ]
    assert found == []
