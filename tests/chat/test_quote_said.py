"""`quote` typed as people type it: a word beside the schedule was swallowed by it (`报价 910B 每天10小时 20天 美元`
answered in yuan, `… 哈哈` quoted as if it were not there), a run of days had no form (`跑3天`), and a slice or an
option named bare was refused or ignored."""

from __future__ import annotations

from pathlib import Path

from rules.parsing import parse_schedule
from tests.chat.test_both_platforms import driving


def test_words_beside_the_schedule_are_read_or_named(tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        usd = chat.command("报价 910B 每天10小时 20天 美元")  # the currency said bare: it was ignored
        assert "$108" in usd and "¥" not in usd.split("**独占卡")[1].split("\\n")[0], usd
        stray = chat.command("报价 A100 每天4小时 14天 哈哈")  # quoted as if 哈哈 were not there
        assert "无法识别“哈哈”" in stray and "费用" not in stray
        quarter = chat.command("报价 A100 1/4卡 每天4小时 14天")  # a slice said bare: share=1/4
        assert "共享 1/4 卡 · 20 GB" in quarter, quarter
        shared = chat.command("报价 A100 共享卡 每天4小时 两周")  # the option asked for: every quote prices it
        assert "共享 1/2 卡 · 40 GB" in shared and "¥784" in shared
        run = chat.command("报价 A100 8卡 跑3天")  # a run of days, every hour of them
        assert "A100-80GB × 8 的费用：每天 24 小时 × 3 天" in run, run
        assert "“currency”给出了两次" in chat.command("quote A100 4x14 USD currency=CNY")
        month = chat.command("报价 A100 一个月")  # a period alone: the card rented for it (refused, naming it)
        assert "每天 24 小时 × 30 天" in month and "¥11,500" in month, month
        assert "A100-80GB × 2 的费用：每天 24 小时 × 10 天" in chat.command("报价 A100 两张 10天")
        total = chat.command("quote H100 100 gpu hours")  # "gpu" is no cards word here
        assert "共 100 GPU 小时（按连续运行计价，约 4.2 天）" in total and "买卡" not in total, total


def test_a_run_of_hours_is_priced_on_every_card_asked_for(tmp_path: Path) -> None:
    """`quote H100 10h`, `报价 A100 8卡 跑10个小时` and `H100 跑10个小时多少钱` were refused ("unexpected '10h'") or
    answered with the price list: one run of so many hours is that many GPU-hours on each card."""
    with driving("slack", tmp_path) as chat:
        assert "Cost for H100-80GB × 1, 10 GPU-hours (priced as one run back to back, 10 h)" in chat.command(
            "quote H100 10h"
        )
        eight = chat.command("报价 A100 8卡 跑十个小时")
        assert "A100-80GB × 8, 80 GPU-hours (priced as one run back to back, 10 h)" in eight, eight
        asked = chat.command("H100 跑10个小时多少钱")  # in words: the quote, not the list of prices
        assert "10 GPU-hours" in asked and "Cached prices" not in asked, asked
        assert "10 GPU-hours" in chat.command("how much is an H100 for 10 hours")
        assert 'not understand "A100 abc hours"' in chat.command("A100 abc hours")  # no figure: not a run


def test_a_schedule_holds_only_its_own_words() -> None:
    """The schedule's pieces were searched for anywhere in the words, and the rest dropped unread."""
    for said in ("共享卡 每天4小时 14天", "每天10小时 20天 美元", "每天4小时 14天 哈哈", "3天", "跑4小时"):
        try:
            parse_schedule(said)
        except ValueError:
            continue
        raise AssertionError(f"{said!r} was read as a schedule")
    for said, hours, days in [
        ("跑3天", 24, 3),
        ("连续跑两周", 24, 14),
        ("3 days straight", 24, 3),
        ("每天跑4小时，连续两周吧", 4, 14),
        ("4 hours a day for the next 2 weeks", 4, 14),
        ("daily 8 hours for 3 days", 8, 3),
        ("weekdays, 8 hours", 8, 22),
        ("weekdays 8 hours for 4 weeks", 8, 20),
    ]:
        read = parse_schedule(said)
        assert (read.hours_per_day, read.days) == (hours, days), said


def test_one_run_on_several_gpus_is_quoted_on_each(tmp_path: Path) -> None:
    """`A100和H100跑一周分别多少钱` listed each card's hourly price (the run dropped), and `quote A100 H100 4x14`
    refused the second GPU: the run is now quoted on each, side by side, each total the card's own quote."""
    from bot.text.format import money
    from pricing.quote import QuoteRequest

    with driving("wecom", tmp_path) as chat:
        said = chat.command("A100和H100跑一周分别多少钱")
        assert "**A100-80GB · H100-80GB：每天 24 小时 × 7 天的费用**" in said, said
        for gpu in ("A100-80GB", "H100-80GB"):
            alone = chat.deps.prices.quote(QuoteRequest(gpu=gpu, hours_per_day=24, days=7, currency="CNY"))
            assert alone.dedicated is not None
            assert f"• **{gpu}** × 1：独占 {money(alone.dedicated.amount, 'CNY')}" in said, said
        eight = chat.command("quote A100 4090 8卡 4x14")
        assert "**A100-80GB** × 8：" in eight and "**RTX4090-24GB** × 8：" in eight, eight
        unknown = chat.command("quote A100 H100 哈哈")  # a word no quote reads: named once, as for one card
        assert unknown.startswith("无法识别“哈哈”") and unknown.count("哈哈") == 1, unknown
        assert "对比" in chat.command("A100和H100哪个划算")  # no run said: their hourly prices, as before


def test_a_model_the_catalogue_does_not_know_is_named_with_those_it_does(tmp_path: Path) -> None:
    """`quote A100 MI300X 4x14` refused MI300X as a word not read (and the work failed where the words came with a known
    GPU, redone and never answered), `A100和MI300X跑一周分别多少钱` priced the A100 alone, `B200多少钱` was unknown."""
    with driving("wecom", tmp_path) as chat:
        both = chat.command("quote A100 MI300X 4x14")
        assert "**A100-80GB** × 1：独占 ¥5,600" in both and "**MI300X**：未知的 GPU 型号“MI300X”" in both, both
        assert "未知的 GPU 型号“MI300X”。已知型号：A10-24GB" in chat.command("quote MI300X 4x14")
        assert "未知的 GPU 型号“MI300X”" in chat.command("A100和MI300X跑一周分别多少钱")
        assert "未知的 GPU 型号“B200”" in chat.command("B200多少钱")
