"""`remind pause`'s words to the first day the digest comes again (bot/app/remind_pause.py): a day alone is the last
without it, `until` a day or `之前` the first with it, a week skipped back on the Monday after."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from bot.app.remind_pause import resume_day

MONDAY = date(2026, 11, 30)


@pytest.mark.parametrize(
    ("words", "resumes"),
    [
        (["明天"], date(2026, 12, 2)),
        (["tomorrow"], date(2026, 12, 2)),
        (["今天"], date(2026, 12, 1)),
        (["until", "周五"], date(2026, 12, 4)),
        (["周五之前"], date(2026, 12, 4)),
        (["until", "monday"], date(2026, 12, 7)),  # said on a Monday: next week's
        (["until", "今天"], MONDAY),  # refused by the pause as no day after today
        (["这周"], date(2026, 12, 7)),
        (["下周"], date(2026, 12, 14)),
        (["this", "week"], date(2026, 12, 7)),
        ([], None),
        (["春节"], None),
    ],
)
def test_the_day_a_pause_ends(words: list[str], resumes: date | None) -> None:
    assert resume_day(words, MONDAY) == resumes


def test_someone_else_cannot_pause_or_switch_the_channels_digest(tmp_path: Path) -> None:
    """A pause, as off and on, is whoever set the schedule's (or an admin's): refused to another, naming the
    setter, and nothing changes; a day said wrong is refused saying what is taken."""
    from bot.state.schedules import Schedules
    from tests.support.slack_harness import running_app

    with running_app(tmp_path) as h:

        def said(text: str, user: str, n: str) -> str:
            h.send.command(text, user=user, response_url=h.fake.response_url(n))
            found = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith(f"/{n}")])
            return str(found[0]["text"])

        h.fake.locales["U2"] = "en-US"
        said("remind at 09:30", "U1", "1")
        for n, asked in enumerate(("remind pause until monday", "remind off", "remind on"), start=2):
            refused = said(asked, "U2", str(n))
            assert "set by <@U1>: only they or a workspace admin" in refused, (asked, refused)
        plan = Schedules(h.deps.store, h.deps.settings.digest.default_schedule()).of("T1", "C1")
        assert plan.enabled and plan.resume_on is None
        assert "Paused until when?" in said("remind pause whenever", "U1", "9")
