from __future__ import annotations

import contextlib
from dataclasses import asdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.advice import without_none
from rules import parsing
from rules.errors import ParseError
from rules.parsing import parse_duration, parse_memory, parse_qps, parse_yes_no
from rules.profile import DurationBucket, FrequencyLevel, Phase, Workload


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("45 min", 0.75),
        ("3h", 3),
        ("3.5 hours", 3.5),
        ("2 days", 48),
        ("3 weeks", 504),
        ("半小时", 0.5),
        ("两小时", 2),
        ("10小时", 10),
        ("3天", 72),
        ("about 10 hours", 10),
        ("两个半小时", 2.5),
        ("1h30m", 1.5),
        ("1 hour 30 minutes", 1.5),
        ("十二小时", 12),
        ("大约10个小时", 10),
        ("１０ｈ", 10),
        ("half an hour", 0.5),
        ("2-3h", 3),
        ("an hour", 1),
    ],
)
def test_durations(text: str, hours: float) -> None:
    assert parsing.parse_duration(text).hours == pytest.approx(hours)


@pytest.mark.parametrize(
    ("text", "bucket"),
    [
        ("short", DurationBucket.SHORT),
        ("medium", DurationBucket.MEDIUM),
        ("long", DurationBucket.LONG),
        ("短", DurationBucket.SHORT),
        ("中", DurationBucket.MEDIUM),
        ("长", DurationBucket.LONG),
        ("<1h", DurationBucket.SHORT),
        ("1-8h", DurationBucket.MEDIUM),
        (">8h", DurationBucket.LONG),
        ("> 8 h", DurationBucket.LONG),
        ("LONG", DurationBucket.LONG),
    ],
)
def test_duration_buckets(text: str, bucket: DurationBucket) -> None:
    assert parsing.parse_duration(text).bucket is bucket


def test_more_than_is_marked_as_a_lower_bound() -> None:
    answer = parsing.parse_duration("8小时以上")
    assert (answer.hours, answer.above) == (8, True)


@pytest.mark.parametrize("text", ["", "   ", "soon", "10", "0h", "-3h", "10 parsecs", "1000 weeks", "h"])
def test_bad_durations_list_the_accepted_forms(text: str) -> None:
    with pytest.raises(ParseError) as caught:
        parsing.parse_duration(text)
    assert "3.5 hours" in str(caught.value)
    assert caught.value.accepted == parsing.ACCEPTED["duration"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("yes", True),
        ("no", False),
        ("y", True),
        ("n", False),
        ("true", True),
        ("false", False),
        ("是", True),
        ("否", False),
        ("能", True),
        ("不能", False),
        ("可以", True),
        ("不可以", False),
        ("需要", True),
        ("不需要", False),
        ("Yes.", True),
        ("不能，要从头跑", False),
        ("no, never", False),
    ],
)
def test_yes_no(text: str, value: bool) -> None:
    assert parsing.parse_yes_no(text) is value


@pytest.mark.parametrize("text", ["maybe", "不确定", "能不能", "perhaps yes"])
def test_unclear_yes_no_is_rejected(text: str) -> None:
    with pytest.raises(ParseError, match="yes/no"):
        parsing.parse_yes_no(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yes", {"tight": True}),
        ("no", {"tight": False}),
        ("是", {"tight": True}),
        ("70GB", {"peak_gb": 70}),
        ("70 GB of 80", {"peak_gb": 70, "card_gb": 80}),
        ("70/80", {"peak_gb": 70, "card_gb": 80}),
        ("70G/80G", {"peak_gb": 70, "card_gb": 80}),
        ("85%", {"fraction": 0.85}),
        ("85 ％", {"fraction": 0.85}),
        ("百分之85", {"fraction": 0.85}),
        ("70 GB out of 80 GB", {"peak_gb": 70, "card_gb": 80}),
    ],
)
def test_memory(text: str, expected: dict[str, float]) -> None:
    answer = without_none(asdict(parsing.parse_memory(text)))
    assert answer == pytest.approx(expected)


def test_full_finetuning_said_short() -> None:
    job = parsing.parse_memory("7B全参")
    assert (job.model_size_b, job.method) == (7, Workload.FULL_FINETUNE)


def test_bare_memory_number_asks_for_a_unit() -> None:
    with pytest.raises(ParseError, match="bare_number"):
        parsing.parse_memory("70")


@pytest.mark.parametrize("text", ["0/80", "70/0", "lots", "0%", "70 TB"])
def test_bad_memory(text: str) -> None:
    with pytest.raises(ParseError):
        parsing.parse_memory(text)


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        ("daily", 7),
        ("every day", 7),
        ("3 times a week", 3),
        ("weekly", 1),
        ("每天", 7),
        ("每周两次", 2),
        ("twice a week", 2),
        ("3x/week", 3),
        ("一周三次", 3),
        ("every 2 days", 3.5),
        ("每两天一次", 3.5),
        ("2 times a day", 14),
        ("once a month", 12 / 52),
    ],
)
def test_frequency_runs(text: str, runs: float) -> None:
    assert parsing.parse_frequency(text).runs_per_week == pytest.approx(runs)


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("high", FrequencyLevel.HIGH),
        ("low", FrequencyLevel.LOW),
        ("高频", FrequencyLevel.HIGH),
        ("低频", FrequencyLevel.LOW),
        ("偶尔", FrequencyLevel.LOW),
    ],
)
def test_frequency_levels(text: str, level: FrequencyLevel) -> None:
    assert parsing.parse_frequency(text).level is level


@pytest.mark.parametrize("text", ["sometimes?", "0 times a week", "every 0 days", "3"])
def test_bad_frequency(text: str) -> None:
    with pytest.raises(ParseError, match="daily"):
        parsing.parse_frequency(text)


def test_context_parsers() -> None:
    assert parsing.parse_workload("LoRA") is Workload.LORA
    assert parsing.parse_workload("预训练") is Workload.PRETRAIN
    assert parsing.parse_phase("部署") is Phase.DEPLOYMENT
    assert parsing.parse_gpu("nvidia h100 sxm5 80gb") == "H100-80GB"
    assert parsing.parse_model_size("70亿") == pytest.approx(7)
    assert parsing.parse_model_size("13B") == 13
    assert parsing.parse_p99("0.04s") == pytest.approx(40)
    assert parsing.parse_qps("300 qps") == 300
    schedule = parsing.parse_schedule("每天4小时，14天")
    assert (schedule.hours_per_day, schedule.days) == (4, 14)


def test_unknown_gpu_lists_known_models() -> None:
    with pytest.raises(ParseError) as caught:
        parsing.parse_gpu("B300")
    assert "A100-80GB" in caught.value.accepted


@pytest.mark.parametrize(
    ("said", "days"), [("包月", 30), ("包周", 7), ("包天", 1), ("包年", 365), ("monthly", 30), ("by the month", 30)]
)
def test_a_card_rented_for_a_whole_period_is_every_hour_of_it(said: str, days: float) -> None:
    schedule = parsing.parse_schedule(said)  # 包月: a month's rental, as platforms sell it
    assert (schedule.hours_per_day, schedule.days) == (24, days)


def test_schedule_over_24_hours_a_day() -> None:
    with pytest.raises(ParseError, match="day_over_24h"):
        parsing.parse_schedule("25x3")


PARSERS = [
    parsing.parse_duration,
    parsing.parse_yes_no,
    parsing.parse_memory,
    parsing.parse_frequency,
    parsing.parse_workload,
    parsing.parse_phase,
    parsing.parse_gpu,
    parsing.parse_model_size,
    parsing.parse_qps,
    parsing.parse_p99,
    parsing.parse_schedule,
    parsing.parse_cards,
]

answer_like = st.one_of(
    st.text(max_size=80),
    st.from_regex(r"[0-9一二两三十半]{1,4}\s?(h|小时|天|%|GB|/|of|x|次|周)?\s?[0-9]{0,3}", fullmatch=True),
)


@settings(max_examples=300, deadline=None)
@given(text=answer_like, which=st.sampled_from(PARSERS))
def test_arbitrary_text_raises_only_parse_error(text: str, which: object) -> None:
    with contextlib.suppress(ParseError):
        which(text)  # type: ignore[operator]


def test_a_negative_figure_has_its_own_reason() -> None:
    for parse, text in ((parse_duration, "-5h"), (parse_memory, "-70GB"), (parse_qps, "-3")):
        with pytest.raises(ParseError) as caught:
            parse(text)
        assert caught.value.problem == "negative"


def test_chinese_numerals_are_numbers() -> None:
    assert parse_qps("三百") == 300
    assert parse_qps("两千五百 qps") == 2500
    assert parse_qps("一万二") == 12000


def test_yes_no_questions_list_forms_about_themselves() -> None:
    with pytest.raises(ParseError) as caught:
        parse_yes_no("maybe", "model_parallel")
    assert "需要/不需要" in caught.value.accepted and "能/不能" not in caught.value.accepted


def test_one_set_of_bounds_where_answers_are_read() -> None:
    with pytest.raises(ParseError) as caught:
        parsing.parse_schedule("1x3661")
    assert caught.value.problem == "days_out_of_range"
    with pytest.raises(ParseError) as caught:
        parse_duration("0.0000001h")
    assert caught.value.problem == "duration_under_a_minute"
    assert parsing.parse_schedule("1x3660").days == 3660


@pytest.mark.parametrize(
    ("said", "problem"),
    [
        ("5000GB", "peak_too_large"),
        ("1500%", "percent_too_large"),
        ("0GB", "peak_not_positive"),
        ("0%", "percent_not_positive"),
        ("0/4", "percent_not_positive"),  # a part of the card: none of it
        ("0/0", "peak_not_positive"),  # a card of 0 GB is no part to take (hypothesis found it dividing by zero)
    ],
)
def test_a_memory_peak_out_of_range_says_which_end(said: str, problem: str) -> None:
    """5000 GB and 1500% were refused as "must be above zero"."""
    with pytest.raises(ParseError) as caught:
        parse_memory(said)
    assert caught.value.problem == problem


def test_cards_rented_in_china_are_known() -> None:
    """H20 (the Hopper card sold in China) and the RTX 3090 were unknown GPUs: their answers and quotes were refused."""
    from rules.gpus import gpu_model, smallest_mig_profile

    h20 = gpu_model(parsing.parse_gpu("H20"))
    assert (h20.name, h20.memory_gb) == ("H20-96GB", 96)
    assert getattr(smallest_mig_profile(h20, 40), "name", None) == "3g.48gb"  # a 40 GB peak: half an H20
    assert parsing.parse_gpu("RTX 3090") == "RTX3090-24GB" and parsing.parse_gpu("H200") == "H200-141GB"


@pytest.mark.parametrize(
    ("said", "amount"),
    [("20000", 20000), ("20,000", 20000), ("2万", 20000), ("1.5万", 15000), ("20k", 20000), ("三百", 300),
     ("两万五", 25000), ("一万一千五", 11500), ("20000元", 20000), ("300块", 300), ("两块五", 2.5), ("二十块钱", 20),
     # 毛 (or 角) a tenth and 分 a hundredth: None before
     ("3毛", 0.3), ("八毛五", 0.85), ("5毛钱", 0.5), ("两块五毛", 2.5), ("一块二毛五", 1.25), ("1块5", 1.5),
     # a digit after 千 or 万 is its next place, as 三千二 says: None before
     ("3千2", 3200), ("1万2", 12000), ("2w5", 25000), ("三千二", 3200)],
)  # fmt: skip
def test_money_as_people_type_it(said: str, amount: float) -> None:
    from rules.numbers import money_value

    assert money_value(said) == amount


@pytest.mark.parametrize("said", ["块", "毛", "两块五三", "五毛五块"])
def test_money_words_that_are_no_amount(said: str) -> None:
    from rules.numbers import money_value

    assert money_value(said) is None


@pytest.mark.parametrize(
    ("said", "price"),
    [("400元/天", (400, "day")), ("1.5万/月", (15000, "month")), ("一万一千五/月", (11500, "month")),
     ("两块五/小时", (2.5, "hour")), ("2.5元每小时", (2.5, "hour")), ("¥400/day", (400, "day")),
     # the unit first, or "一" for "a" (read before the numerals, where it would be a 1): refused before
     ("每小时20元", (20, "hour")), ("20块一小时", (20, "hour")), ("一天400", (400, "day")), ("400一天", (400, "day")),
     ("每天400元", (400, "day")), ("月租11500", (11500, "month")), ("包月11500", (11500, "month")),
     ("11500一个月", (11500, "month")),
     # a rate's 一 after a Chinese numeral, where the unit ends the price (it was read as part of the number: refused)
     ("两块五一小时", (2.5, "hour")), ("一千一天", (1000, "day")), ("一千一一天", (1100, "day")),
     ("一百五一天", (150, "day")), ("两千五一天", (2500, "day")), ("一块二一小时", (1.2, "hour")),
     ("3毛一小时", (0.3, "hour")), ("八毛五一小时", (0.85, "hour")), ("一千一个月", (1000, "month"))],
)  # fmt: skip
def test_a_price_as_people_type_it(said: str, price: tuple[float, str]) -> None:
    assert parsing.parse_price(said) == price


@pytest.mark.parametrize("said", ["400 30/天", "1 400/day", "60 5/h"])
def test_figures_typed_apart_are_no_one_price(said: str) -> None:
    """Spaces were dropped before the price was read: "400 30/天" was 40,030 a day."""
    with pytest.raises(ParseError):
        parsing.parse_price(said)
    assert parsing.parse_price("每小时 60 元") == (60.0, "hour")


@pytest.mark.parametrize(
    ("said", "read"),
    [("A100*8", ("A100", 8)), ("8xA100", ("A100", 8)), ("8卡A100", ("A100", 8)), ("4090 x2", ("4090", 2)),
     ("RTX 4090 × 2", ("RTX 4090", 2)), ("MLU370-X8", ("MLU370-X8", None)), ("A100", ("A100", None)),
     ("Z9*8", ("Z9*8", None)), ("A100*0", ("A100*0", None))],
)  # fmt: skip
def test_a_gpu_said_with_its_count_as_platforms_list_a_machine(said: str, read: tuple[str, int | None]) -> None:
    from rules.gpus import counted_gpu

    assert counted_gpu(said) == read


def test_colloquial_chinese_numerals_and_a_word_that_holds_one() -> None:
    from rules.numbers import chinese_int

    assert [chinese_int(x) for x in ("一千五", "两百五", "一千零五", "一百一")] == [1500, 250, 1005, 110]
    with pytest.raises(ParseError):
        parsing.parse_duration("万一跑不完呢")  # 万一 ("in case") is a word, not ten thousand and one
