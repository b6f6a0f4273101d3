from __future__ import annotations

import json
import sys
from pathlib import Path

import pexpect
import pytest

from tests.support.cli import ROOT, run_cli

OFFLINE = {"GPU_ADVISOR_AZURE_ENABLED": "false", "GPU_ADVISOR_ECB_ENABLED": "false"}

FLAGS = [
    "--duration",
    "10h",
    "--memory-peak",
    "70/80",
    "--model-parallel",
    "no",
    "--frequency",
    "daily",
    "--can-resume",
    "no",
]


def test_json_decision(tmp_path: Path) -> None:
    result = run_cli("advise", *FLAGS, "--workload", "lora", "--json", "--lang", "en", tmp=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["choice"] == "dedicated"
    assert data["hits"] == ["long_run", "memory_tight", "no_interruption"]
    assert any("87.5%" in r for r in data["reasons"])
    assert {"scenario_lora", "scenario_conflict", "billing_dedicated_monthly"} <= {a["id"] for a in data["advice"]}


def test_a_chinese_locale_gets_chinese(tmp_path: Path) -> None:
    result = run_cli(
        "advise",
        "--duration",
        "3小时",
        "--memory-peak",
        "否",
        "--model-parallel",
        "不需要",
        "--frequency",
        "每周两次",
        "--can-resume",
        "能",
        env={"LANG": "zh_CN.UTF-8"},
        tmp=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "共享卡" in result.stdout
    assert "命中 0 项" in result.stdout


def test_bad_flag_names_the_flag_and_the_accepted_forms(tmp_path: Path) -> None:
    result = run_cli(
        "advise", *FLAGS[:-2], "--can-resume", "perhaps", "--memory-peak", "70", "--lang", "en", tmp=tmp_path
    )
    assert result.returncode == 2
    assert "--can-resume: Could not read 'perhaps'" in result.stderr
    assert "Accepted: yes/no, y/n" in result.stderr and "能/不能" not in result.stderr  # forms in English
    assert "--memory-peak: Could not read '70': a bare number" in result.stderr


def test_missing_answers_without_a_terminal_exit_2_and_are_named(tmp_path: Path) -> None:
    result = run_cli("advise", "--duration", "3h", tmp=tmp_path)
    assert result.returncode == 2
    assert "--memory-peak (memory peak)" in result.stderr
    assert "--can-resume (resuming after an interruption)" in result.stderr
    assert result.stdout == ""


def test_inference_needs_only_qps_and_p99(tmp_path: Path) -> None:
    result = run_cli("advise", "--workload", "inference", "--qps", "300", "--p99-ms", "40ms", "--json", tmp=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["choice"] == "dedicated"


def test_interactive_through_stdin_reasks_a_bad_answer(tmp_path: Path) -> None:
    answers = "lora\nabout 10 hours\nsoonish\n70 GB of 80\nno\n每天\n不能\n\n\n\n"
    result = run_cli("advise", "--interactive", "--lang", "en", stdin=answers, tmp=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Question 1/5" in out and "Question 5/5" in out
    assert "Could not read 'soonish'" in out  # the memory question, re-asked
    assert "Recommendation: Dedicated card: A100-80GB" in out
    assert "Long run: 10 h is more than 8 h" in out


def test_interactive_answers_are_echoed_as_typed_never_read_as_markup(tmp_path: Path) -> None:
    """A typed "[/x]" crashed the interview (rich read it as a closing tag); ":fire:" became an emoji."""
    answers = "[/x] :fire: [bold]\nlora\nabout 10 hours\n70 GB of 80\nno\n每天\n不能\n\n\n\n"
    result = run_cli("advise", "--interactive", "--lang", "en", stdin=answers, tmp=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Could not read '[/x] :fire: [bold]'" in result.stdout and "MarkupError" not in result.stderr
    assert "Recommendation: Dedicated card: A100-80GB" in result.stdout


def test_interactive_memory_question_takes_the_model_the_kind_of_work_named_on_enter(tmp_path: Path) -> None:
    """`做lora微调 qwen2-7b` named the model; the memory question then asked for it again. Enter now takes it, read
    as that LoRA, as chat's "Estimate from qwen2-7b" button does; a typed answer still wins."""
    answers = "做lora微调 qwen2-7b\n3h\n\nno\ndaily\nyes\n\n\n\n"
    result = run_cli("advise", "--interactive", "--lang", "en", stdin=answers, tmp=tmp_path)
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "press Enter to estimate it from qwen2-7b" in out
    assert "Memory estimated from the model (7B, LoRA)" in out, out
    typed = "做lora微调 qwen2-7b\n3h\n70/80\nno\ndaily\nyes\n\n\n\n"
    said = run_cli("advise", "--interactive", "--lang", "en", stdin=typed, tmp=tmp_path)
    assert "peak 70 GB of 80 GB" in " ".join(said.stdout.split()), said.stdout
    unsure = "做lora微调 qwen2-7b\n3h\nnot sure\nno\ndaily\nyes\n\n\n\n"  # not knowing: the model's estimate too
    done = run_cli("advise", "--interactive", "--lang", "en", stdin=unsure, tmp=tmp_path)
    assert "Memory estimated from the model (7B, LoRA)" in " ".join(done.stdout.split()), done.stdout


def test_a_missing_memory_says_the_flag_that_estimates_it_from_the_model_named(tmp_path: Path) -> None:
    """Without --memory-peak, the model the kind of work named is one flag away: said beside what is missing."""
    flags = ("--workload", "做lora微调 qwen2-7b", "--duration", "3h", "--model-parallel", "no", "--frequency", "daily")
    done = run_cli("advise", *flags, "--can-resume", "yes", "--no-interactive", "--lang", "en", tmp=tmp_path)
    assert done.returncode == 2 and "missing answers: --memory-peak (memory peak)" in done.stderr
    assert "the kind of work names a model: --memory-peak qwen2-7b estimates its memory" in done.stderr
    assert "upper end" not in done.stderr  # the workload read back as LoRA, not "the upper end of" qwen2-7b's 2-7


def test_interactive_memory_question_offers_the_estimate_from_the_model(tmp_path: Path) -> None:
    answers = "lora\n3h\n13B 全参微调\nyes\ndaily\nyes\n\n\n\n"
    result = run_cli("advise", "--interactive", "--lang", "en", stdin=answers, tmp=tmp_path)
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "Not sure? Give the model and how it is trained to estimate it: 7B LoRA" in out
    assert "Memory estimated from the model (13B, full fine-tuning): about 251.1 GB" in out
    assert "Recommendation: Dedicated cards: 4 × A100-80GB" in out
    flag = run_cli(
        "advise",
        "--memory-peak",
        "72B QLoRA",
        "--duration",
        "3h",
        "--model-parallel",
        "no",
        "--frequency",
        "daily",
        "--can-resume",
        "yes",
        "--json",
        tmp=tmp_path,
    )
    assert json.loads(flag.stdout)["memory_peak_gb"] == 55.9, flag.stderr


def test_interactive_input_ending_early_exits_2(tmp_path: Path) -> None:
    result = run_cli("advise", "--interactive", "--lang", "en", stdin="\n10h\n", tmp=tmp_path)
    assert result.returncode == 2
    assert "input ended before the question --memory-peak was answered" in result.stderr


@pytest.mark.e2e  # starts a process
@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_terminal_session_asks_without_flags(tmp_path: Path) -> None:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "bot", "advise", "--lang", "en"],
        cwd=str(ROOT),
        env={
            "GPU_ADVISOR_DB": str(tmp_path / "a.db"),
            "COLUMNS": "200",
            "TERM": "dumb",
            "PATH": "/usr/bin:/bin",
            "NO_COLOR": "1",
        },
        encoding="utf-8",
        timeout=30,
    )
    try:
        for pattern, answer in [
            ("workload", "hpo"),
            ("single training run", "3h"),
            ("memory peak", "no"),
            ("model", "no"),
            ("How often", "weekly"),
            ("resume", "yes"),
            ("phase", ""),
            ("GPU model", ""),
            ("Hours a day", ""),
        ]:
            child.expect(pattern)
            child.expect("> ")
            child.sendline(answer)
        child.expect("Recommendation: Shared card")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_policy_show_prints_the_effective_policy(tmp_path: Path) -> None:
    result = run_cli("policy", "show", tmp=tmp_path)
    assert result.returncode == 0
    assert "long_run_hours: 8.0" in result.stdout
    assert "bundled policy" in result.stdout


def test_bad_policy_file_fails_at_start_up(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\ntwo_of_four: {long_run_hours: -1}\n")
    result = run_cli("advise", *FLAGS, "--policy", str(bad), tmp=tmp_path)
    assert result.returncode == 2
    assert "two_of_four.long_run_hours: Input should be greater than 0" in result.stderr


def test_bad_setting_in_environment(tmp_path: Path) -> None:
    result = run_cli("advise", *FLAGS, env={"GPU_ADVISOR_LANG": "fr"}, tmp=tmp_path)
    assert result.returncode == 2
    assert "bad configuration" in result.stderr and "lang" in result.stderr


def test_a_bad_language_in_dot_env_is_refused_by_the_command_and_help_still_answers(tmp_path: Path) -> None:
    """The light start reads `.env` as Settings does: a bad GPU_ADVISOR_LANG there is a clear error naming the
    setting and what it takes; `--help` falls back to the terminal's locale rather than failing."""
    (tmp_path / ".env").write_text("GPU_ADVISOR_LANG=fr\n")
    result = run_cli("advise", *FLAGS, tmp=tmp_path)
    assert result.returncode == 2, result.stdout
    assert "bad configuration" in result.stderr and "lang: Input should be 'zh' or 'en'" in result.stderr
    helped = run_cli("advise", "--help", tmp=tmp_path)
    assert helped.returncode == 0 and "--duration" in helped.stdout and not _chinese(helped.stdout)


def test_interactive_schedule_adds_the_cost_quote(tmp_path: Path) -> None:
    answers = "hpo\n3h\n20GB\nno\nweekly\nyes\n\n\n4x14\n"
    result = run_cli(
        "advise",
        "--interactive",
        "--lang",
        "en",
        stdin=answers,
        env={"GPU_ADVISOR_AZURE_ENABLED": "false", "GPU_ADVISOR_ECB_ENABLED": "false"},
        tmp=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "Recommendation: Shared card" in result.stdout
    assert "Cost for A100-80GB" in result.stdout and "¥5,600" in result.stdout


def test_a_service_is_quoted_around_the_clock_without_spot_or_release_advice(tmp_path: Path) -> None:
    result = run_cli(
        "advise",
        "--workload",
        "inference",
        "--qps",
        "300",
        "--p99-ms",
        "40ms",
        "--quote",
        "--json",
        "--lang",
        "en",
        env=OFFLINE,
        tmp=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    quote = data["quote"]
    assert (quote["hours_per_day"], quote["days"]) == (24, 30)
    assert quote["spot"] is None and quote["omitted"] == {"spot": "latency_critical"}
    assert not data["spot_suitable"] and data["spot_reason"] == "latency_critical"
    assert quote["dedicated"]["billing"] == "monthly"
    ids = [a["id"] for a in data["advice"]]
    assert "billing_service_dedicated" in ids and "release_when_done" not in ids and "billing_spot" not in ids
    shared = quote["shared"]
    assert shared["amount_min"] == shared["amount_max"] == shared["amount"]  # a service's days do not stretch


def test_a_service_runs_the_hours_given(tmp_path: Path) -> None:
    result = run_cli(
        "advise",
        "--workload",
        "inference",
        "--qps",
        "20",
        "--p99-ms",
        "200",
        "--serving-hours",
        "每天8小时",
        "--can-resume",
        "yes",
        "--quote",
        "--json",
        env=OFFLINE,
        tmp=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["choice"] == "shared" and data["quote"]["hours_per_day"] == 8
    assert "service_throughput" in data["quote"]["shared"]["notes"]


def test_an_english_locale_gets_english_and_the_setting_and_flag_win(tmp_path: Path) -> None:
    flags = [
        "advise",
        "--duration",
        "3h",
        "--memory-peak",
        "no",
        "--model-parallel",
        "no",
        "--frequency",
        "daily",
        "--can-resume",
        "yes",
    ]
    assert "Recommendation: Shared card" in run_cli(*flags, tmp=tmp_path).stdout  # C.UTF-8
    assert "建议: 共享卡" in run_cli(*flags, env={"LANG": "en_US.UTF-8", "GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path).stdout
    assert "建议: 共享卡" in run_cli(*flags, env={"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, tmp=tmp_path).stdout
    assert "Recommendation" in run_cli(*flags, "--lang", "en", env={"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path).stdout


def test_every_message_of_a_run_is_in_one_language(tmp_path: Path) -> None:
    result = run_cli("advise", "--duration", "3h", "--can-resume", "也许", env={"LANG": "zh_CN.UTF-8"}, tmp=tmp_path)
    assert result.returncode == 2
    assert "--can-resume：" in result.stderr or "--can-resume: 无法识别" in result.stderr
    assert "Could not read" not in result.stderr and "missing answers" not in result.stderr


def test_re_asks_list_the_forms_in_the_users_language(tmp_path: Path) -> None:
    result = run_cli("advise", "--duration", "3h", "--model-parallel", "也许", "--lang", "zh", tmp=tmp_path)
    assert (
        "可接受的格式：需要/不需要, 是/否, 要/不要, 需要8卡, yes/no" in result.stderr
    )  # about parallelism, Chinese first


def test_a_negative_figure_and_chinese_numerals(tmp_path: Path) -> None:
    negative = run_cli("advise", "--duration", "-5h", "--lang", "en", tmp=tmp_path)
    assert "--duration: Could not read '-5h': a negative figure" in negative.stderr
    qps = run_cli("advise", "--workload", "推理", "--qps", "三百", "--p99-ms", "40", "--json", tmp=tmp_path)
    assert qps.returncode == 0, qps.stderr
    assert json.loads(qps.stdout)["profile"]["qps"] == 300


def test_the_light_start_reads_language_and_policy_from_dot_env_too(tmp_path: Path) -> None:
    """advise without a quote reads GPU_ADVISOR_LANG and GPU_ADVISOR_POLICY as Settings does: from the
    environment over `.env` in the working folder."""
    (tmp_path / "strict.yaml").write_text("two_of_four: {long_run_hours: 12}\n")
    (tmp_path / ".env").write_text(f"GPU_ADVISOR_LANG=zh\nGPU_ADVISOR_POLICY={tmp_path / 'strict.yaml'}\n")
    result = run_cli(
        "advise",
        "--duration",
        "10h",
        "--memory-peak",
        "70/80",
        "--model-parallel",
        "no",
        "--frequency",
        "daily",
        "--can-resume",
        "yes",
        "--json",
        tmp=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["lang"] == "zh" and "long_run" not in data["hits"]  # 10 h is not long under the team's 12 h
    english = run_cli(
        "advise",
        "--duration",
        "10h",
        "--memory-peak",
        "70/80",
        "--model-parallel",
        "no",
        "--frequency",
        "daily",
        "--can-resume",
        "yes",
        "--json",
        tmp=tmp_path,
        env={"GPU_ADVISOR_LANG": "en"},
    )
    assert json.loads(english.stdout)["lang"] == "en"  # the environment wins over .env


def _chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_a_language_in_dot_env_is_the_language_of_help_answers_and_errors(tmp_path: Path) -> None:
    """Issue 28.3: with GPU_ADVISOR_LANG=zh in `.env`, `advise --help` printed English (its reader looked at the
    environment only) while `advise` answered in Chinese."""
    (tmp_path / ".env").write_text("GPU_ADVISOR_LANG=zh\n")
    flags = [
        "--duration",
        "10h",
        "--memory-peak",
        "70/80",
        "--model-parallel",
        "no",
        "--frequency",
        "daily",
        "--can-resume",
        "yes",
    ]
    helped = run_cli("advise", "--help", tmp=tmp_path)
    answered = run_cli("advise", *flags, tmp=tmp_path)
    refused = run_cli("advise", *flags[:-1], "perhaps", tmp=tmp_path)
    assert helped.returncode == 0 and _chinese(helped.stdout), helped.stdout
    assert answered.returncode == 0 and _chinese(answered.stdout), answered.stdout
    assert refused.returncode == 2 and _chinese(refused.stderr) and "--can-resume" in refused.stderr, refused.stderr
    english = run_cli("advise", "--help", tmp=tmp_path, env={"GPU_ADVISOR_LANG": "en"})  # the environment wins
    assert english.returncode == 0 and not _chinese(english.stdout), english.stdout


def test_a_memory_answer_that_agrees_with_the_model_estimate_is_advised_not_a_crash(tmp_path: Path) -> None:
    """Issue 17.1: this command ended in KeyError 'peak_gb' (advice.memory_estimate's placeholder)."""
    result = run_cli(
        "advise",
        "--duration",
        "2h",
        "--memory-peak",
        "no",
        "--model-parallel",
        "no",
        "--frequency",
        "weekly",
        "--can-resume",
        "yes",
        "--workload",
        "lora",
        "--model-size",
        "7b",
        "--json",
        "--lang",
        "en",
        tmp=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    [estimate] = [a for a in json.loads(result.stdout)["advice"] if a["id"] == "memory_estimate"]
    assert "about 19 GB" in estimate["text"]


def test_advise_help_speaks_the_terminals_language_where_typer_allows(tmp_path: Path) -> None:
    """Issue 19.4: typer's option help was English for --lang zh users."""
    zh = run_cli("advise", "--help", "--lang", "zh", tmp=tmp_path).stdout
    assert "为训练或推理任务推荐独占卡或共享切片" in zh and "显存峰值是否超过单卡显存的 80%？ 例如" in zh
    en = run_cli("advise", "--help", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path).stdout
    assert "Recommend a dedicated card" in en and "What kind of workload is it? E.g." in en


def test_the_five_answers_piped_in_the_readmes_order_give_the_decision(tmp_path: Path) -> None:
    """Issue 53.19: the README names five questions, and a person piping them in that order was told to use
    flags instead."""
    done = run_cli(
        "advise", "--json", stdin="10h\n70/80\nno\ndaily\nno\n", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path
    )
    assert done.returncode == 0, done.stderr
    decided = json.loads(done.stdout)
    assert decided["choice"] == "dedicated"  # the README's example: three of four fire
    flags_win = run_cli(
        "advise",
        "--json",
        "--duration",
        "2h",
        stdin="10h\n70/80\nno\ndaily\nno\n",
        env={"GPU_ADVISOR_LANG": "en"},
        tmp=tmp_path,
    )
    assert json.loads(flags_win.stdout)["profile"]["duration"]["hours"] == 2.0
    none = run_cli("advise", stdin="", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert none.returncode == 2 and "--duration" in none.stderr  # nothing piped: the flags, as before


def test_no_interactive_is_still_taken_and_never_asks(tmp_path: Path) -> None:
    """--no-interactive became a flag of its own (the pair took a column of the help's table): it is still taken, and
    with it the answers piped in are read a line each, never asked for."""
    piped = run_cli("advise", "--no-interactive", "--lang", "en", stdin="10h\nno\nno\ndaily\nyes\n", tmp=tmp_path)
    assert piped.returncode == 0 and "Dedicated card" not in piped.stdout and "?" not in piped.stderr, piped.stderr
    short = run_cli("advise", "--no-interactive", "--duration", "3h", "--lang", "en", tmp=tmp_path)
    assert short.returncode == 2 and "missing answers: --memory-peak" in short.stderr
