"""serve's hourly `reports:keep-days` job: each team's ended days made and kept before anyone asks, for the days its
board shows (the seven ending today and this month), in each zone its channels' digests count days in: the days' busy
and idle GPU-hours added up (bot/state/activity_days.py), and each instance's figures of each day, its money among them
(bot/state/money_days.py). The first board of the day then makes only today's part (bench/board.py says how long
either takes). Weekly reports read the same days."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.board.figures import days_shown
from bot.deps import Deps
from bot.report.compose import compose
from bot.state.rentals import Rentals
from bot.state.schedules import Schedules


def keep_days(deps: Deps) -> int:
    """Keep every team's whole days the board would add up now; how many (team, zone) pairs were read."""
    now, rentals = deps.now(), Rentals(deps.store)
    schedules = Schedules(deps.store, deps.settings.digest.default_schedule())
    busy, metering = deps.policy.idle.utilisation_max_pct, deps.policy.metering
    read = 0
    for team in rentals.teams():
        items = rentals.instances(team)
        zones = {schedules.default.zone} | {z.key for z in schedules.zones(team, {i.channel for i in items}).values()}
        for key in sorted(zones):
            zone = ZoneInfo(key)
            shown = days_shown(now, zone)
            compose(rentals, team, shown.start, shown.last, zone=zone, now=now, busy_above_pct=busy, metering=metering)
            read += 1
    return read
