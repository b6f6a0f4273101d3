"""`remind` typed as people type it: `at` after the days (`every weekday at 8`), a bare hour after `at`, am/pm typed
apart, a clock in English words, several days' words and the language by its name were each refused."""

from __future__ import annotations

from pathlib import Path

from bot.state.schedules import Schedules
from tests.chat.test_both_platforms import driving


def test_a_schedule_said_in_words_is_kept_as_said(tmp_path: Path) -> None:
    with driving("slack", tmp_path) as chat:
        default = chat.deps.settings.digest.default_schedule()

        def kept() -> tuple[str, str, str | None]:
            found = Schedules(chat.deps.store, default).of("T1", "C1")
            return found.at.strftime("%H:%M"), found.days_text, found.lang

        for typed, schedule in [
            ("remind every weekday at 8", ("08:00", "mon-fri", "en")),
            ("remind 9:30 pm", ("21:30", "mon-fri", "en")),
            ("remind at nine thirty mondays and thursdays", ("09:30", "mon,thu", "en")),
            ("提醒 周一三五 10:00 中文", ("10:00", "mon,wed,fri", "zh")),
            ("remind at half past six weekends in English", ("06:30", "sat,sun", "en")),
            ("提醒 9.30 工作日", ("09:30", "mon-fri", "en")),
            ("提醒 每天", ("09:30", "mon-sun", "en")),  # days alone: the time kept (it was the usage)
            ("提醒 周末不要", ("09:30", "mon-fri", "en")),  # the weekend left out
            ("remind me at 6pm on weekends", ("18:00", "sat,sun", "en")),  # who is reminded: the channel
            ("每天早上9点提醒我", ("09:00", "mon-sun", "en")),  # no sub-command: a wish to be reminded
        ]:
            said = chat.command(typed)
            assert kept() == schedule, (typed, said)
        refused = chat.command("remind at nine")  # a bare English number says no clock
        assert "'nine'" in refused and kept() == ("09:00", "mon-sun", "en")  # as it was
