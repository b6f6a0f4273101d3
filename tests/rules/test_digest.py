"""The digest as a pure function of rented things, samples and a clock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from rules.digest import compose, per_day
from rules.idle import Activity
from rules.policy import Idle
from rules.samples import Sample

NOW = datetime(2026, 11, 30, 1, 30, tzinfo=UTC)
RULES = Idle()


@dataclass(frozen=True)
class Box:
    id: int
    name: str
    price: float = 400.0
    unit: str = "day"
    owner: str = "U1"
    project: str | None = "llm"
    currency: str = "CNY"
    started_at: datetime = NOW - timedelta(days=3)
    released_at: datetime | None = None


@dataclass(frozen=True)
class Disk:
    name: str
    size_gb: float = 100
    price_gb_month: float = 0.3
    owner: str = "U1"
    project: str | None = "llm"
    currency: str = "CNY"
    instance_id: int | None = None
    created_at: datetime = NOW - timedelta(days=2)
    deleted_at: datetime | None = None


def hour(util: float, *, minutes: int = 180, mem: float = 0) -> list[Sample]:
    return [Sample(NOW - timedelta(minutes=m), 0, util, mem, 81920) for m in range(minutes, -1, -5)]


def test_idle_is_news_with_what_it_burns_busy_and_young_are_not() -> None:
    boxes = [
        Box(1, "idle"),
        Box(2, "busy"),
        Box(3, "young", started_at=NOW - timedelta(minutes=20)),
        Box(4, "dark", price=14, unit="hour"),
    ]
    samples = {1: hour(0), 2: hour(90), 3: hour(0, minutes=20)}
    digest = compose(boxes, [], samples, now=NOW, rules=RULES)
    assert [(n.name, n.activity) for n in digest.instances] == [("idle", Activity.IDLE), ("dark", Activity.UNKNOWN)]
    idle = digest.instances[0]
    assert idle.since == NOW - timedelta(minutes=180)
    assert idle.burned == 50.0  # 400/day for 3 hours
    assert digest.instances[1].per_day == 336.0  # 14/h is 336/day: after the 400/day one


def test_a_busy_sample_ends_the_quiet_stretch_and_memory_held_is_its_own_kind() -> None:
    samples = hour(0, mem=30000)
    samples[0] = Sample(samples[0].at, 0, 80, 30000, 81920)  # busy three hours ago, quiet since
    digest = compose([Box(1, "nb")], [], {1: samples}, now=NOW, rules=RULES)
    [news] = digest.instances
    assert news.activity is Activity.MEMORY_HELD and news.since == NOW - timedelta(minutes=175)


def test_a_snoozed_instance_is_not_news_until_the_snooze_ends() -> None:
    quiet = {1: hour(0)}
    assert not compose([Box(1, "a")], [], quiet, now=NOW, rules=RULES, snoozes={1: NOW + timedelta(hours=2)}).news
    assert compose([Box(1, "a")], [], quiet, now=NOW, rules=RULES, snoozes={1: NOW - timedelta(minutes=1)}).news


def test_storage_left_behind_or_untouched_past_the_policy_age() -> None:
    released = Box(1, "gone", price=14, unit="hour", released_at=NOW - timedelta(hours=10))
    disks = [
        Disk("ckpt", instance_id=1),
        Disk("old", created_at=NOW - timedelta(days=20)),
        Disk("fresh"),
        Disk("old-but-read", created_at=NOW - timedelta(days=20)),
        Disk("deleted", instance_id=1, deleted_at=NOW - timedelta(hours=1)),
    ]
    digest = compose(
        [released], disks, {}, now=NOW, rules=RULES, last_touched={"old-but-read": NOW - timedelta(days=1)}
    )
    assert [(s.name, s.reason) for s in digest.storage] == [("ckpt", "left_behind"), ("old", "stale")]
    assert digest.storage[0].per_month == 30.0
    assert digest.saved == {"CNY": 140.0}  # an hourly meter, on all day, released ten hours ago: 10 h x 14
    assert digest.instances == []
    by_day = Box(2, "daily", released_at=NOW - timedelta(hours=10))  # 400/day from NOW - 3 days: paid until NOW
    assert compose([by_day], [], {}, now=NOW, rules=RULES).saved == {}
    later = NOW + timedelta(hours=1)  # the next day's period was not started: 400 saved
    assert compose([by_day], [], {}, now=later, rules=RULES).saved == {"CNY": 400.0}


def test_month_to_date_spend_per_project_and_currency() -> None:
    boxes = [
        Box(1, "a", started_at=datetime(2026, 10, 20, tzinfo=UTC)),  # 400/day: each day's period from Nov 1
        Box(2, "b", project="search", price=2, unit="hour", currency="USD"),
        Box(3, "c", released_at=NOW - timedelta(days=1)),
    ]
    made = compose(boxes, [], {}, now=NOW, rules=RULES, budgets={("llm", "CNY"): 20000, ("ops", "USD"): 500})
    spend = {(s.project, s.currency): s.amount for s in made.spend}
    assert {(s.project, s.budget) for s in made.spend} == {("llm", 20000), ("ops", 500), ("search", None)}
    assert spend[("ops", "USD")] == 0  # a budget with nothing spent yet is still shown
    assert spend[("search", "USD")] == 144.0  # 3 days of 48/day
    # a: the 30 periods started Nov 1 to Nov 30 00:00; c: two days started 01:30 Nov 27 and 28, then released
    assert spend[("llm", "CNY")] == 400 * 30 + 400 * 2
    assert per_day(Box(9, "m", price=11500, unit="month")) == 11500 / 30


def test_a_box_started_again_is_judged_from_its_restart() -> None:
    """Issue 52: its cloud's 0 % readings while it was off are not idle time; started 10 minutes ago, it is young."""
    from rules.power import Power, Stretch

    box = Box(1, "restarted")
    on, off = NOW - timedelta(minutes=10), NOW - timedelta(minutes=120)
    stretches = [
        Stretch(Power.ON, box.started_at, off, "agent"),
        Stretch(Power.OFF, off, on, "person"),
        Stretch(Power.ON, on, NOW, "person"),
    ]
    digest = compose([box], [], {1: hour(0)}, now=NOW, rules=RULES, timelines={1: stretches})
    assert [n.name for n in digest.instances] == []  # young since its restart: nothing to say yet
    still_on = [Stretch(Power.ON, box.started_at, NOW, "agent")]
    digest = compose([box], [], {1: hour(0)}, now=NOW, rules=RULES, timelines={1: still_on})
    assert [(n.name, n.activity) for n in digest.instances] == [("restarted", Activity.IDLE)]
