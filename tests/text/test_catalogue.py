"""The text catalogue: both languages for every key, and a sentence for every id the code emits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.text import Lang, t
from bot.text.catalogue import FILES, entries, placeholders
from bot.text.format import show
from rules.questions import ASKS

ROOT = Path(__file__).parents[2]
RULES = "\n".join(p.read_text("utf-8") for p in (ROOT / "rules").glob("*.py"))


def test_every_key_has_both_languages_with_the_same_placeholders() -> None:
    table = entries()
    assert len(table) > 200
    for key, texts in table.items():
        assert set(texts) == {Lang.EN, Lang.ZH}, key
        assert placeholders(texts[Lang.EN]) == placeholders(texts[Lang.ZH]), key


def test_every_catalogue_file_is_loaded() -> None:
    on_disk = {p.stem for p in (ROOT / "bot" / "text").glob("*.yaml")}
    assert on_disk == set(FILES)


def test_every_advice_id_the_engine_emits_has_a_message() -> None:
    emitted = set(re.findall(r'Topic\.\w+, "(\w+)"', RULES))
    emitted |= {
        "two_of_four_dedicated",
        "two_of_four_shared",
        "inference_dedicated",
        "inference_shared",
        "two_of_four_overruled",
        "inference_overruled",
    }
    emitted |= {f"spot_not.{reason}" for reason in re.findall(r'return False, "(\w+)"', RULES)}
    assert len(emitted) > 20, "the engine's advice ids were not found"
    assert {f"advice.{rule}" for rule in emitted} <= set(entries())


def test_every_question_and_usual_answer_has_words() -> None:
    for ask in ASKS:
        assert t(f"question.{ask.key}", Lang.ZH) and t(f"question.{ask.key}", Lang.EN)
        for value in ask.options:
            assert t(f"answer.{ask.key}.{value}", Lang.ZH)


@pytest.mark.parametrize("source", ["rules/parsing.py", "pricing/quote.py", "bot/chat/inline.py"])
def test_every_error_code_raised_has_a_sentence(source: str) -> None:
    code = (ROOT / source).read_text("utf-8")
    prefixes = {
        "rules/parsing.py": "parse.problem.",
        "pricing/quote.py": "error.quote.",
        "bot/chat/inline.py": "error.inline.",
    }
    found = set(re.findall(r'(?:ParseError\([^\n]*, |QuoteError\(|InlineError\()"(\w+)"', code))
    assert found, f"no error codes found in {source}"
    for name in found:
        key = f"{prefixes[source]}{name}"
        assert key in entries() or {f"{key}.cli", f"{key}.slack"} <= set(entries()), name


def test_words_in_parameters_are_translated() -> None:
    assert "全参微调" in t("advice.scenario_conflict", Lang.ZH, workload="full-finetune", expected="dedicated")
    assert "独占" in t("advice.scenario_conflict", Lang.ZH, workload="full-finetune", expected="dedicated")
    assert "full fine-tuning" in t("advice.scenario_conflict", Lang.EN, workload="full-finetune", expected="dedicated")


def test_numbers_are_shown_without_trailing_zeros() -> None:
    assert show(10.0) == "10"
    assert show(87.5) == "87.5"
    assert show(5600.0) == "5,600"
    assert show(0.25) == "0.25"
    assert show(3) == "3"


def test_chinese_has_no_stray_space_around_a_word_put_in() -> None:
    text = t("advice.scenario_conflict", Lang.ZH, workload="full-finetune", expected="dedicated")
    assert "全参微调通常适合独占卡" in text
    assert "13B 模型全参微调的显存峰值" in t(
        "advice.memory_estimate", Lang.ZH, model_size_b=13, workload="full-finetune", estimate_gb=250, card_gb=80
    )
    assert "训练训练" not in t(
        "advice.memory_estimate", Lang.ZH, model_size_b=7, workload="pretrain", estimate_gb=130, card_gb=80
    )


def test_a_command_to_type_keeps_its_spaces_in_chinese() -> None:
    """The help said `balance 平台金额`: the space between two Chinese words was dropped inside the command to type,
    which then reads as one word. Spaces inside a code span stay; the prose around it still loses its stray ones."""
    help_text = t("slack.usage", Lang.ZH, keys="", keys_zh="", chinese="")
    assert "`balance 平台 金额 [at=9:00]`" in help_text and "`budget 项目 off`" in help_text
    assert "请用 `power 名称 on` 或" in t("meter.power_usage", Lang.ZH)
    assert "现在或" in t("error.metering.bad_moment", Lang.ZH, value="x")  # the prose still closes its gaps


def test_no_english_article_before_a_number() -> None:
    for key, texts in entries().items():
        assert not re.search(r"\b[aA] \{(card_gb|peak_gb|memory_gb)\}", texts[Lang.EN]), key


def test_the_articles_term_for_the_rule() -> None:
    assert "四项命中两项" in t("advice.phase_stable", Lang.ZH)


TERMINAL_COMMAND = re.compile(r"(?<![/\w-])gpu-advise [a-z]")  # `gpu-advise list`, not `/gpu-advise list`
SLACK_FAMILIES = (
    "slack.",
    "digest.",
    "advice.",
    "check.",
    "error.rental.",
    "error.capture.",
    "error.quote.",
    "headline.",
    "parse.problem.",
    "question.",
)


def test_no_slack_message_tells_people_to_run_a_terminal_command() -> None:
    """Issue 19.7: Slack said `gpu-advise list`, `gpu-advise track instance ...`, `gpu-advise probe`, and
    the digest footer `gpu-advise release NAME`: the Slack way, or what an admin can do, instead."""
    table = entries()
    said_in_slack = {key.removesuffix(".chat") for key in table if key.endswith(".chat")}
    offenders = []
    for key, texts in table.items():
        if not key.startswith(SLACK_FAMILIES) or key.endswith(".cli") or key in said_in_slack:
            continue  # terminal-only sentences, and those Slack says through their .chat variant
        offenders += [f"{key} ({lang.value})" for lang, text in texts.items() if TERMINAL_COMMAND.search(text)]
    assert offenders == []


def test_a_chinese_sentence_joined_to_the_next_has_no_space_after_its_full_stop() -> None:
    """`budget` said "已花 ¥0，预算 ¥20,000。 按当前速度…": an English join inside a Chinese line."""
    from datetime import date

    from bot.text.budget import standing_line
    from rules.budget import Standing

    standing = Standing("llm", "CNY", 20000.0, 812.0, 23400.0, date(2026, 12, 31), ())
    zh, en = standing_line(standing, Lang.ZH), standing_line(standing, Lang.EN)
    assert "。按当前速度" in zh and "。 " not in zh, zh
    assert ". At this rate" in en, en


def test_a_command_with_chinese_words_keeps_its_spaces() -> None:
    """The Chinese text drops spaces between Chinese characters, except inside a code span: the terminal told zh
    users to type `gpu-advise balance 平台金额` (one word where the command takes two)."""
    said = t("cli.balance_empty", Lang.ZH)
    assert "`gpu-advise balance 平台 金额`" in said, said


def test_sentences_are_joined_as_each_language_writes_them() -> None:
    from bot.text.format import sentences

    assert sentences(Lang.ZH, "预算 ¥20,000。", "按当前速度。") == "预算 ¥20,000。按当前速度。"
    assert sentences(Lang.ZH, "预付余额：", "autodl") == "预付余额：autodl"
    assert sentences(Lang.ZH, "A100 80GB", "H100") == "A100 80GB H100"  # no full-width stop: a space
    assert sentences(Lang.EN, "Budget ¥20,000.", "At this rate.", "") == "Budget ¥20,000. At this rate."


def test_a_refused_answer_ends_each_sentence_once() -> None:
    """The refusal added its own full stop after a problem that ended its sentence: "是指 10h 吗？。",
    "请给出在一侧的数字。。", "did you mean 10h?."."""
    from bot.text.errors import parse_error_text
    from rules.errors import ParseError
    from rules.parsing import parse_duration, parse_memory

    for parse, said in ((parse_duration, "一晚上"), (parse_memory, "超过一半"), (parse_duration, "soon")):
        with pytest.raises(ParseError) as refused:
            parse(said)
        for lang in Lang:
            text = parse_error_text(refused.value, lang)
            assert not re.search(r"[。？！.?!][。.]", text), text
    assert "：无法理解。可接受的格式" in parse_error_text(refused.value, Lang.ZH)  # one without its own stop gets one


def test_a_refusal_in_a_forms_room_names_the_forms_that_fit_and_cuts_none() -> None:
    """A form shows 150 characters under a field: the memory question's refusal was cut mid-form
    ("Llama-3.1-70B "). It now names the accepted forms that fit, then "…"."""
    from bot.app.forms import ERROR_MAX, read_answers

    for lang in Lang:
        said = read_answers({"memory": "lots"}, lang)[1]["memory"]
        assert len(said) <= ERROR_MAX and said.endswith(", …"), said
        assert "70 GB of 80" in said and "Llama-3.1-70B" not in said
