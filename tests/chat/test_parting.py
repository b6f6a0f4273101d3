"""A message longer than a chat takes was refused whole (Feishu's 30 KB card: 230025; WeCom's 4,096-byte markdown:
40058) and the person saw nothing: a `list` of a hundred machines. It goes in parts now, each within the chat's
limit, every line once."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.chat.message import Button, Message, Section, plain
from bot.chat.parting import parted, parted_text
from bot.state.rentals import Rentals
from bot.text import Lang
from bot.text.spans import CLOSE, OPEN, mention
from tests.chat.test_both_platforms import driving

LINES = st.lists(st.text(alphabet="ab 显卡\u00e9", min_size=0, max_size=60), min_size=1, max_size=40)


def _bytes_within(limit: int) -> Callable[[str], bool]:
    return lambda text: len(text.encode()) <= limit


@settings(max_examples=200, deadline=None)
@given(lines=LINES, limit=st.integers(min_value=4, max_value=200))
def test_every_part_fits_and_nothing_is_lost(lines: list[str], limit: int) -> None:
    text = "\n".join(lines)
    parts = parted_text(text, _bytes_within(limit))
    assert all(len(part.encode()) <= limit for part in parts)
    assert "".join(parts).replace("\n", "") == text.replace("\n", "")
    if all(len(line.encode()) <= limit for line in lines):  # parted between lines only: the text as it was
        assert "\n".join(parts) == text


def test_a_span_is_never_cut() -> None:
    line = " ".join(mention(f"ou_{n:04d}") for n in range(40))
    parts = parted_text(line, lambda text: len(text) <= 50)
    assert len(parts) > 1 and "".join(parts).replace(" ", "") == line.replace(" ", "")
    assert all(part.count(OPEN) == part.count(CLOSE) for part in parts)


def test_the_title_goes_first_the_notes_and_buttons_last_an_item_whole() -> None:
    yes = Button("a", "v", "Yes")
    item = Section("box9 idle 3 days", buttons=(Button("released", "box9", "Released"),), item=("i", "box9"))
    lines = "\n".join(f"line {n:02d} " + "x" * 20 for n in range(30))
    message = Message(lines, Lang.EN, title="T", sections=(Section(lines), item), buttons=(yes,), context=("note",))

    def size(m: Message) -> int:
        texts = [m.title or "", *(s.text for s in m.sections), *m.context, *(b.label for b in m.buttons)]
        return sum(len(text) + 1 for text in texts)

    parts = parted(message, lambda m: size(m) <= 200)
    assert len(parts) > 1 and all(size(p) <= 200 for p in parts)
    assert parts[0].title == "T" and all(p.title is None for p in parts[1:])
    assert parts[-1].buttons == (yes,) and parts[-1].context == ("note",)
    assert all(not p.buttons and not p.context for p in parts[:-1])
    assert [s for p in parts for s in p.sections if s.item] == [item]  # whole, with its buttons, once
    said = "\n".join(s.text for p in parts for s in p.sections if not s.item)
    assert said == lines
    assert parted(plain("short", Lang.EN), lambda m: True) == [plain("short", Lang.EN)]


def _many(chat: Any, count: int) -> list[str]:
    """`count` machines tracked in the group besides one typed there: their names."""
    chat.in_group("track node-000 A100-80GB price=14/h")
    rentals = Rentals(chat.deps.store)
    team = rentals.teams()[0]
    first = rentals.instance(team, "node-000")
    fields = {"gpu": first.gpu, "channel": first.channel, "owner": first.owner, "unit": "hour", "price": 14.0}
    fields |= {"currency": first.currency}
    for n in range(1, count):
        rentals.track_instance(team, f"node-{n:03d}", fields | {"started_at": datetime(2026, 12, 1, tzinfo=UTC)})
    return [f"node-{n:03d}" for n in range(count)]


def test_a_long_list_on_feishu_comes_in_cards_within_30_kb(tmp_path: Path) -> None:
    with driving("feishu", tmp_path) as chat:
        names = _many(chat, 200)
        before = len(chat.h.fake.sent())
        chat.in_group("list")
        cards = chat.h.fake.sent()[before:]
        assert len(cards) > 1 and all(c.status == 200 and c.size <= 30 * 1024 for c in cards)
        shown = "\n".join(e["content"] for c in cards for e in c.card["body"]["elements"])
        assert all(shown.count(f"**{name}**") == 1 for name in names), shown[:300]


def test_a_long_list_on_wecom_comes_in_markdown_within_4096_bytes(tmp_path: Path) -> None:
    with driving("wecom", tmp_path) as chat:
        names = _many(chat, 120)
        before = len(chat.h.fake.sent)
        chat.in_group("list")
        texts = [s.text for s in chat.h.fake.sent[before:]]
        assert len(texts) > 1 and all(len(text.encode()) <= 4096 for text in texts)
        shown = "\n".join(texts)
        assert all(shown.count(f"**{name}**") == 1 for name in names), shown[:300]
