"""Answers stated with a bound or an approximation decide as they mean (issue 51): "more than 64 GB" is tight on an
80 GB card though 64 GB is not, "不到64G" is not, 七十多G is; "不到100" QPS is not a high peak, 一百出头 is."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.answers import AnswersError, build_profile, parse_answers
from rules.engine import evaluate
from rules.policy import Policy, load_policy
from tests.support.cli import run_cli

POLICY = load_policy()


def memory_fired(policy: Policy, memory: str) -> bool:
    profile = build_profile(parse_answers({"duration": "3h", "memory": memory, "model_parallel": "no"}))
    check = next(c for c in evaluate(profile, policy).checks if c.rule.value == "memory_tight")
    return check.fired


@pytest.mark.parametrize(
    ("memory", "tight"),
    [("七十多G", True), ("more than 64GB", True), ("超过80%", True), ("a bit over 64GB", True), ("不到64G", False),
     ("64GB", False), ("80G的卡只用了40G", False), ("80G的卡用了六成", False), ("差不多占满80G", True),
     # an approximate or bounded peak on a card said after it: refused before ("七十多G/80G" as the terminal asks)
     ("七十多G/80G", True), ("70多G of 80", True), ("七十多G，卡80G", True), ("不到64G/80G", False),
     ("七十多G/100G", False), ("30-40G/80G", False)],
)  # fmt: skip
def test_a_bound_decides_the_tight_rule_as_it_means(policy: Policy, memory: str, tight: bool) -> None:
    assert memory_fired(policy, memory) is tight


def test_an_approximate_peak_straddling_the_line_of_the_card_after_it_is_asked_about() -> None:
    from rules.errors import ParseError
    from rules.parsing import parse_memory

    with pytest.raises(ParseError) as refused:
        parse_memory("六十多G/80G")  # 60-70 GB against the 64 GB line of an 80 GB card
    assert refused.value.problem == "ambiguous_memory_bound"


@pytest.mark.parametrize(
    ("qps", "choice"), [("不到100", "shared"), ("一百出头", "dedicated"), ("about 300 at peak", "dedicated")]
)
def test_a_qps_bound_decides_the_inference_rule_as_it_means(policy: Policy, qps: str, choice: str) -> None:
    profile = build_profile(parse_answers({"workload": "inference", "qps": qps, "p99_ms": "<50ms"}))
    assert evaluate(profile, policy).choice.value == choice


def test_the_terminal_reads_a_bound_and_says_so_before_the_decision() -> None:
    done = run_cli(
        "advise", "--duration", "8个多小时", "--memory-peak", "七十多G", "--model-parallel", "不需要模型并行",
        "--frequency", "每天", "--can-resume", "没法恢复", "--json", "--lang", "en",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "70–80 GB: memory tight" in done.stderr and "no (from “没法恢复”)" in done.stderr
    advice = json.loads(done.stdout)
    assert advice["choice"] == "dedicated"


def test_an_answer_straddling_the_line_is_refused_naming_it() -> None:
    done = run_cli("advise", "--memory-peak", "六十多G", "--duration", "3h", "--lang", "en")
    assert done.returncode == 2
    assert "straddles 64 GB, 80% of the A100-80GB" in done.stderr
    done = run_cli("advise", "--workload", "inference", "--qps", "不到200", "--p99-ms", "40", "--lang", "zh")
    assert done.returncode == 2 and "跨过了规则的判断线 100 QPS" in done.stderr


def test_the_interval_lines_are_the_bundled_policys() -> None:
    """The parser keeps copies of the policy's lines (it has no policy): a change of one without the other fails."""
    from rules.parsing import HIGH_QPS_LINE, LONG_RUN_LINE

    assert POLICY.inference.high_qps == HIGH_QPS_LINE
    assert POLICY.two_of_four.long_run_hours == LONG_RUN_LINE


BOUNDS = {"above": ["more than {n}GB", "超过{n}G", "{n}G以上", "over {n} GB"], "below": ["less than {n}GB", "不到{n}G",
          "{n}G不到", "under {n} gigs"], "some": ["{n}多G", "{n} something gigs"]}  # fmt: skip


@given(st.integers(min_value=1, max_value=40), st.sampled_from(sorted(BOUNDS)), st.data())
def test_a_stated_peak_is_tight_refused_or_not_as_its_interval_lies_against_the_line(
    tens: int, kind: str, data: st.DataObject
) -> None:
    """Every surface reads answers with parse_answers: a bound or "some more" on the default 80 GB card (line 64 GB)
    is tight when wholly above the line, not tight when wholly at or below it, and refused naming 64 GB otherwise."""
    n = tens * 2 if kind != "some" else tens * 10 if tens < 10 else tens
    form = data.draw(st.sampled_from(BOUNDS[kind]))
    low, high = {"above": (n, None), "below": (None, n), "some": (n, n + (10 if n % 10 == 0 and n % 100 else 1))}[kind]
    above_line = low is not None and low >= 64 and not (kind == "some" and low < 64)
    below_line = high is not None and high <= 64
    try:
        answer = parse_answers({"memory": form.format(n=n)})["memory"]
    except AnswersError as refused:
        assert not above_line and not below_line, form.format(n=n)
        assert refused.errors["memory"].params["line"] == "64 GB"
        return
    tight = memory_fired(POLICY, form.format(n=n))
    assert tight is above_line and (tight or below_line), (form.format(n=n), answer)


def test_a_model_size_alone_is_asked_trained_or_served_unless_the_work_says() -> None:
    with pytest.raises(AnswersError) as caught:
        parse_answers({"memory": "7B"})
    assert caught.value.errors["memory"].problem == "which_model_job"
    served = parse_answers({"memory": "7B", "workload": "推理"})["memory"]  # the kind of work given beside it
    assert (served.model_size_b, str(served.method), served.served_model is not None) == (7, "inference", True)
    trained = parse_answers({"memory": "70亿模型", "workload": "LoRA"})["memory"]
    assert (trained.model_size_b, str(trained.method)) == (7, "lora")
    with pytest.raises(AnswersError):  # a kind of work with no model rule of thumb: refused, naming the forms
        parse_answers({"memory": "7B", "workload": "调参"})


def test_an_answer_with_no_figure_to_judge_by_is_asked_for_one_in_the_terminal() -> None:
    """大半天 lies either side of the 8 h line, 不定期 has no figure; 7B alone may be trained or served: each asked."""
    done = run_cli(
        "advise", "--duration", "大半天", "--frequency", "不定期", "--memory-peak", "7B", "--model-parallel", "no",
        "--can-resume", "yes", "--lang", "zh", "--no-interactive",
    )  # fmt: skip
    assert done.returncode == 2
    assert "“大半天”跨过了规则的判断线 8 h" in done.stderr
    assert "平均每周大约跑几次" in done.stderr
    assert "7B 是训练还是推理" in done.stderr
