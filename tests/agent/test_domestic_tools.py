"""The domestic cards' tools read as the agent and probe read them (bot/agent/hy_smi.py, cnmon.py,
mthreads_gmi.py, xpu_smi.py), from outputs written in each tool's documented layout (tests/data/<tool>; not
recorded on a box: no such card here): every card's utilisation, memory and power, its name mapped to the
catalogue, and output a reader cannot use is one error naming the tool and the line or field, never a 0 %."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.agent import cnmon, hy_smi, mthreads_gmi, xpu_smi
from bot.agent.errors import NoGPU
from bot.text import t
from rules.gpus import card_model

DATA = Path(__file__).parents[1] / "data"
NOW = datetime(2026, 12, 3, 9, tzinfo=UTC)


def rows(read: list[dict[str, object]]) -> list[tuple[object, ...]]:
    keys = ("gpu", "name", "utilization_pct", "memory_used_mib", "memory_total_mib", "power_w")
    return [tuple(r[k] for k in keys) for r in read]


def test_hy_smi_reads_each_card_with_the_unit_its_keys_name() -> None:
    read = hy_smi.parse((DATA / "hy_smi" / "k100_two_cards.json").read_text(), NOW)
    assert rows(read) == [
        (0, "Hygon K100_AI", 92.0, 46580.0, 65520.0, 298.0),
        (1, "Hygon K100_AI", 0.0, 12.0, 65520.0, 61.0),
    ]  # the "system" entry is no card
    assert card_model(str(read[0]["name"]), 65520.0) == "K100-AI-64GB"
    [older] = hy_smi.parse((DATA / "hy_smi" / "z100_bytes.json").read_text(), NOW)
    assert (older["utilization_pct"], older["memory_total_mib"], older["power_w"]) == (3.0, 32752.0, None)
    assert older["memory_used_mib"] == pytest.approx(6.703, abs=0.001)  # bytes in, MiB out


def test_mthreads_gmi_reads_the_full_query() -> None:
    read = mthreads_gmi.parse((DATA / "mthreads_gmi" / "s4000.json").read_text(), NOW)
    assert rows(read) == [
        (0, "MTT S4000", 86.0, 30721.0, 49152.0, 312.4),
        (1, "MTT S4000", 0.0, 3.0, 49152.0, None),
    ]
    assert card_model(str(read[0]["name"]), 49152.0) == "MTT-S4000-48GB"


def test_mthreads_gmi_reads_the_text_form_as_the_json() -> None:
    text = (DATA / "mthreads_gmi" / "s4000_q.txt").read_text()
    json_form = mthreads_gmi.parse((DATA / "mthreads_gmi" / "s4000.json").read_text(), NOW)
    assert mthreads_gmi.parse(text, NOW) == json_form
    flat = "\n".join(line.removeprefix("    ") for line in text.splitlines())  # a card's lines not indented
    assert rows(mthreads_gmi.parse(flat, NOW))[0][2:5] == (86.0, 30721.0, 49152.0)
    one = text.split("GPU 00000000:2b")[0].replace("GPU 00000000:2a:00.0\n", "")  # one card, no header
    assert rows(mthreads_gmi.parse(one, NOW)) == [(0, "MTT S4000", 86.0, 30721.0, 49152.0, 312.4)]
    with pytest.raises(NoGPU) as none:
        mthreads_gmi.parse("Error: No MT GPU device found.\n", NOW)  # what the tool prints without a card
    assert said(none) == "mthreads-gmi listed no card"
    with pytest.raises(NoGPU) as cut:
        mthreads_gmi.parse(text.replace("        Gpu                             : 0%\n", ""), NOW)
    assert said(cut) == "mthreads-gmi gave no Utilization / Gpu for 1"


@pytest.mark.e2e  # starts the stand-in tool
def test_mthreads_gmi_asks_an_older_build_for_its_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = tmp_path / "mthreads-gmi"
    log = tmp_path / "asked"
    tool.write_text(
        f'#!/bin/sh\necho "$*" >> {log}\n'
        f'[ "$*" = "-q" ] || {{ echo "unknown option: --json" >&2; exit 1; }}\n'
        f"cat {DATA / 'mthreads_gmi' / 's4000_q.txt'}\n"
    )
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin:/bin")
    assert rows(mthreads_gmi.read(NOW))[0][2:5] == (86.0, 30721.0, 49152.0)
    assert rows(mthreads_gmi.read(NOW))[1][2:5] == (0.0, 3.0, 49152.0)
    assert log.read_text().splitlines() == ["-q --json", "-q", "-q"]  # refused once, then asked as it answers


def test_cnmon_reads_physical_memory_not_virtual() -> None:
    read = cnmon.parse((DATA / "cnmon" / "mlu370_two_cards.txt").read_text(), NOW)
    assert rows(read) == [
        (0, "Cambricon MLU370-X8", 74.0, 20118.0, 24576.0, 148.0),
        (1, "Cambricon MLU370-X8", 0.0, 0.0, 24576.0, 61.0),
    ]
    assert card_model(str(read[0]["name"])) == "MLU370-X8-48GB"


def test_xpu_smi_reads_its_machine_lines_by_position() -> None:
    read = xpu_smi.parse((DATA / "xpu_smi" / "p800_two_cards.txt").read_text(), NOW)
    assert rows(read) == [
        (0, "Kunlunxin P800 OAM", 63.0, 71680.0, 98304.0, 186.0),
        (1, "Kunlunxin P800 OAM", 0.0, 0.0, 98304.0, 84.0),
    ]
    assert card_model(str(read[0]["name"]), 98304.0) == "P800-96GB"


def said(exc: pytest.ExceptionInfo[NoGPU], lang: str = "en") -> str:
    return t(f"gpu.{exc.value.code}", lang, **exc.value.params)  # type: ignore[arg-type]


def test_what_a_reader_cannot_use_is_one_error_naming_it() -> None:
    with pytest.raises(NoGPU) as no_json:
        hy_smi.parse('WARNING: no amdgpu\n{"card0": {"DCU use (%)": "5",\n oops}', NOW)
    assert said(no_json) == "hy-smi line 3 is not a row of its device table:  oops}"
    with pytest.raises(NoGPU) as no_memory:
        hy_smi.parse('{"card0": {"DCU use (%)": "5"}}', NOW)
    assert said(no_memory) == "hy-smi gave no vram Total Memory / vram Total Used Memory for card0"
    assert "没有给出 card0 的" in said(no_memory, "zh")
    text = (DATA / "cnmon" / "mlu370_two_cards.txt").read_text().replace("MLU Average                : 74 %", "??")
    with pytest.raises(NoGPU) as bad_line:
        cnmon.parse(text, NOW)
    assert said(bad_line) == "cnmon line 7 is not a row of its device table: ??"
    without = (DATA / "cnmon" / "mlu370_two_cards.txt").read_text().replace("MLU Average                : 0 %", "")
    with pytest.raises(NoGPU) as no_use:
        cnmon.parse(without, NOW)
    assert said(no_use) == "cnmon gave no Utilization / MLU Average for Card 1"
    line = (DATA / "xpu_smi" / "p800_two_cards.txt").read_text().splitlines()[1].replace(" 0 98304 ", " - 98304 ")
    with pytest.raises(NoGPU) as bad_xpu:
        xpu_smi.parse(line, NOW)
    assert said(bad_xpu).startswith("xpu-smi line 1 is not a row of its device table: 1 1 0000:23:00.0")
    broken = (DATA / "mthreads_gmi" / "s4000.json").read_text().replace('"Gpu": "86%"', '"Gpu": "N/A"')
    with pytest.raises(NoGPU) as no_util:
        mthreads_gmi.parse(broken, NOW)
    assert said(no_util) == "mthreads-gmi gave no Utilization / Gpu for 0"


@pytest.mark.parametrize("tool", [hy_smi, mthreads_gmi, cnmon, xpu_smi])
def test_no_card_at_all_is_said(tool: object) -> None:
    empty = {hy_smi: '{"system": {}}', mthreads_gmi: '{"GPU": []}', cnmon: "CNMON v5.10.22\n", xpu_smi: "\n"}
    with pytest.raises(NoGPU) as nothing:
        tool.parse(empty[tool], NOW)  # type: ignore[attr-defined]
    assert nothing.value.code == "tool_empty"


def test_a_tools_bytes_are_utf8_else_gbk_else_one_error_naming_the_byte() -> None:
    from bot.agent.tool_run import decoded

    assert decoded("显存 64GB".encode(), "hy-smi") == "显存 64GB"
    assert decoded("显存 64GB".encode("gbk"), "hy-smi") == "显存 64GB"  # a tool localised for Chinese
    with pytest.raises(NoGPU) as caught:
        decoded(b"ok \xff\xff\xff", "npu-smi")
    assert caught.value.code == "tool_encoding" and caught.value.params["tool"] == "npu-smi"
    assert "neither UTF-8 nor GBK" in said(caught)


def test_json_cut_short_names_where_it_ends_rather_than_failing() -> None:
    with pytest.raises(NoGPU) as caught:
        hy_smi.parse('{"card0": {"DCU use (%)": "9', datetime.now(UTC))
    assert caught.value.code == "tool_line" and "hy-smi" in said(caught)


@pytest.mark.e2e  # starts the stand-in cnmon
def test_cnmon_cut_short_between_two_cards_names_the_card_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 53.11: cnmon's output cut after its first card read 1 of 2 cards without a word. The box's
    /dev/cambricon_dev<N> nodes say how many it has; the card left out is named."""
    whole = (DATA / "cnmon" / "mlu370_two_cards.txt").read_text()
    printed = tmp_path / "printed.txt"
    printed.write_text(whole[: whole.index("Card 1")])  # the second card's block lost
    folder, devices = tmp_path / "bin", tmp_path / "dev"
    folder.mkdir()
    devices.mkdir()
    script = folder / "cnmon"
    script.write_text(f"#!/bin/sh\ncat {printed}\n")
    script.chmod(0o755)
    for node in ("cambricon_dev0", "cambricon_dev1", "cambricon_ctl", "cambricon_ipcm0"):
        (devices / node).touch()
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}/usr/bin:/bin")
    with pytest.raises(NoGPU) as cut:
        cnmon.read(NOW, devices)
    assert (
        said(cut)
        == "cnmon printed 1 of the 2 cards this box has (one /dev node each): Card 1 missing, its output cut short"
    )
    printed.write_text(whole)  # the whole output: both cards, as the nodes say
    assert [r["gpu"] for r in cnmon.read(NOW, devices)] == [0, 1]
    assert [r["gpu"] for r in cnmon.read(NOW, tmp_path / "no-dev")] == [0, 1]  # no nodes to compare: as printed
