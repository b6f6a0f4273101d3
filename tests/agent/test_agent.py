"""`gpu-advise agent` against the real server, with a stand-in `nvidia-smi` on PATH (no GPU here: NVML's
absence is the normal case, so the agent falls back to nvidia-smi as it would on a box without NVML)."""

from __future__ import annotations

import json
import os
import socket
import stat
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.state.rentals import Rentals
from tests.support.cli import run_cli, run_process
from tests.support.slack_harness import Harness, running_app

FIELDS = {
    "gpu": "A100-80GB",
    "cards": 2,
    "share": None,
    "unit": "day",
    "price": 800.0,
    "currency": "CNY",
    "channel": "C1",
    "owner": "U1",
    "project": None,
}
# What `nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,memory.used,memory.total,power.draw
# --format=csv,noheader,nounits` prints on a two-card box (one reports no power reading).
SMI_OUTPUT = (
    "2026/11/30 01:00:00.123, 0, NVIDIA A100-SXM4-80GB, 3, 1200, 81920, 61.20\n"
    "2026/11/30 01:00:00.125, 1, NVIDIA A100-SXM4-80GB, 0, 30000, 81920, [N/A]\n"
)


def stand_in_smi(folder: Path, output: str = SMI_OUTPUT, code: int = 0) -> dict[str, str]:
    script = folder / "nvidia-smi"
    script.write_text(f"#!/bin/sh\ncat <<'EOF'\n{output}EOF\nexit {code}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return {"PATH": f"{folder}{os.pathsep}/usr/bin:/bin"}


def tracked(h: Harness) -> tuple[Rentals, int, str]:
    rentals = Rentals(h.deps.store)
    inst, token = rentals.track_instance("T1", "train-1", FIELDS | {"started_at": h.clock.now - timedelta(hours=2)})
    return rentals, inst.id, token


def agent(tmp: Path, url: str, token: str, env: dict[str, str], *extra: str):  # type: ignore[no-untyped-def]
    return run_cli(
        "agent",
        "--url",
        url,
        "--once",
        "--buffer",
        str(tmp / "buffer.jsonl"),
        *extra,
        env=env | {"GPU_ADVISOR_AGENT_TOKEN": token, "GPU_ADVISOR_LANG": "en"},
        tmp=tmp,
    )


def heard_running(h: Harness, tmp: Path, url: str, token: str, inst: int):  # type: ignore[no-untyped-def]
    """Starts `agent --interval 5` against URL and returns the process once the bot has heard it say "on"."""
    import subprocess
    import sys
    import time

    from bot.state.power import PowerLog
    from tests.support.cli import _env

    env = os.environ | _env(stand_in_smi(tmp), tmp) | {"GPU_ADVISOR_AGENT_TOKEN": token}
    args = ["agent", "--url", url, "--interval", "5", "--buffer", str(tmp / "b.jsonl")]
    process = subprocess.Popen([sys.executable, "-m", "bot", *args], env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not [
        r for r in PowerLog(h.deps.store).reports([inst])[inst] if r.source == "agent"
    ]:
        time.sleep(0.1)
    return process


@pytest.mark.e2e  # starts a process
def test_once_sends_every_gpu_with_the_watched_folder(tmp_path: Path) -> None:
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "step-100.pt").write_bytes(b"x" * 2_000_000)
    with running_app(tmp_path) as h:
        rentals, inst, token = tracked(h)
        done = agent(tmp_path, h.base_url, token, stand_in_smi(tmp_path), "--watch-dir", str(ckpt))
        assert done.returncode == 0, done.stderr
        got = rentals.samples(inst, h.clock.now - timedelta(hours=1))
        assert sorted((s.gpu, s.utilization_pct, s.memory_used_mib) for s in got) == [
            (0, 3.0, 1200.0),
            (1, 0.0, 30000.0),
        ]
        [disk] = rentals.disks(inst)
        assert disk.path == str(ckpt) and disk.size_gb == 0.002 and disk.newest_mtime is not None


@pytest.mark.e2e  # starts a process
def test_the_bot_down_then_back_loses_nothing(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        nobody = f"http://127.0.0.1:{sock.getsockname()[1]}"  # bound, not listening: refused
        with running_app(tmp_path) as h:
            rentals, inst, token = tracked(h)
            env = stand_in_smi(tmp_path)
            down = agent(tmp_path, nobody, token, env)
            assert down.returncode == 1
            assert len((tmp_path / "buffer.jsonl").read_text().splitlines()) == 2
            # issue 19.11: the agent says what it does (its log line) and --once prints its result
            assert f"cannot reach {nobody}/api/heartbeat: connection refused; 2 samples buffered" in down.stderr
            assert "not sent: the samples stay buffered" in down.stdout
            # the agent samples at most every 5 s (--interval's floor): the buffered samples are from then
            buffered = [json.loads(line) for line in (tmp_path / "buffer.jsonl").read_text().splitlines()]
            for sample in buffered:
                sample["ts"] = (datetime.fromisoformat(sample["ts"]) - timedelta(seconds=5)).isoformat()
            (tmp_path / "buffer.jsonl").write_text("".join(json.dumps(s) + "\n" for s in buffered))
            back = agent(tmp_path, h.base_url, token, env)
            assert back.returncode == 0, back.stderr
            assert "sent 4 samples: kept 4, repeated 0, too old 0" in back.stderr
            assert "sent: the bot kept the samples" in back.stdout
            assert len(rentals.samples(inst, h.clock.now - timedelta(hours=1))) >= 2
            assert (tmp_path / "buffer.jsonl").read_text() == ""


@pytest.mark.e2e  # starts a process
def test_a_refused_token_stops_the_agent_and_says_so(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        tracked(h)
        done = agent(tmp_path, h.base_url, "not-the-token", stand_in_smi(tmp_path))
        assert done.returncode == 3 and "refused the token" in done.stderr
        assert "not-the-token" not in done.stderr + done.stdout


@pytest.mark.e2e  # starts a process
def test_no_gpu_is_a_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    done = agent(tmp_path, "http://127.0.0.1:9", "t", {"PATH": f"{empty}{os.pathsep}/usr/bin:/bin"})
    assert done.returncode == 2 and "no GPU could be read" in done.stderr and "nvidia-smi" in done.stderr
    broken = agent(tmp_path, "http://127.0.0.1:9", "t", stand_in_smi(tmp_path, "garbage line\n"))
    assert broken.returncode == 2 and "line 1" in broken.stderr


@pytest.mark.e2e  # starts a process
def test_a_batch_too_large_keeps_the_newer_half_until_it_fits(tmp_path: Path) -> None:
    buffered = [
        {
            "ts": f"2026-11-30T01:{m:02d}:00+00:00",
            "gpu": 0,
            "utilization_pct": 0,
            "memory_used_mib": 1,
            "memory_total_mib": 2,
        }
        for m in range(60)
    ]
    (tmp_path / "buffer.jsonl").write_text("".join(json.dumps(b) + "\n" for b in buffered))
    with running_app(tmp_path, heartbeat_max_bytes=4096) as h:
        _, _, token = tracked(h)
        first = agent(tmp_path, h.base_url, token, stand_in_smi(tmp_path))
        assert first.returncode == 1
        left = (tmp_path / "buffer.jsonl").read_text().splitlines()
        assert len(left) == 31 and "01:59:00" in left[-3]  # the newer half of 62 (60 buffered + 2 new)


@pytest.mark.e2e  # starts a process
def test_one_invalid_buffered_sample_is_dropped_alone_and_said(tmp_path: Path) -> None:
    """Issue 20.4: a 400 for one invalid sample emptied the whole buffer (119 valid samples lost)."""
    with running_app(tmp_path) as h:
        rentals, inst, token = tracked(h)
        now = h.clock.now
        good = [
            {
                "ts": (now - timedelta(minutes=m)).isoformat(),
                "gpu": 0,
                "utilization_pct": 1,
                "memory_used_mib": 100,
                "memory_total_mib": 81920,
            }
            for m in range(1, 120)
        ]
        bad = good[5] | {"utilization_pct": 140, "ts": (now - timedelta(minutes=200)).isoformat()}
        (tmp_path / "buffer.jsonl").write_text("".join(json.dumps(s) + "\n" for s in [*good[:50], bad, *good[50:]]))
        done = agent(tmp_path, h.base_url, token, stand_in_smi(tmp_path))
        assert done.returncode == 0, done.stderr
        assert "the bot refused sample 50 (samples[50].utilization_pct" in done.stderr  # said, not silent
        assert len(rentals.samples(inst, now - timedelta(hours=3))) == 119 + 2  # the good ones and the new two
        assert (tmp_path / "buffer.jsonl").read_text() == ""


@pytest.mark.parametrize(
    ("url", "token", "code", "said"),
    [
        ("http://[::1", "abc", 2, "--url http://[::1: Invalid port"),
        ("http://" + "a" * 300 + ".com", "abc", 2, "the host name is not one DNS can look up"),
        ("http://127.0.0.1:9", "tök", 3, "refused the token"),
        ("http://127.0.0.1:9", "abc ", 3, "refused the token"),
    ],
)
def test_a_bad_url_or_token_is_one_line_and_its_exit_code(
    tmp_path: Path, url: str, token: str, code: int, said: str
) -> None:
    """Issue 20.14: each of these ended in a traceback."""
    done = agent(tmp_path, url, token, stand_in_smi(tmp_path))
    assert done.returncode == code and said in done.stderr and "Traceback" not in done.stderr


@pytest.mark.e2e  # starts a process
def test_a_damaged_buffer_keeps_its_good_lines_and_a_folder_is_no_buffer(tmp_path: Path) -> None:
    good = {
        "ts": "2026-11-30T01:00:00+00:00",
        "gpu": 0,
        "utilization_pct": 1,
        "memory_used_mib": 1,
        "memory_total_mib": 2,
    }
    (tmp_path / "buffer.jsonl").write_text("garbage\n" + json.dumps(good) + '\n{"ts": "2026-11')
    done = agent(tmp_path, "http://127.0.0.1:9", "abc", stand_in_smi(tmp_path))
    assert done.returncode == 1 and "2 lines of" in done.stderr and "skipped; 1 kept" in done.stderr
    kept = [json.loads(line) for line in (tmp_path / "buffer.jsonl").read_text().splitlines()]
    assert kept[0] == good and len(kept) == 3  # the good one, and the two new readings
    folder = run_cli(
        "agent",
        "--url",
        "http://127.0.0.1:9",
        "--once",
        "--buffer",
        str(tmp_path),
        env=stand_in_smi(tmp_path) | {"GPU_ADVISOR_AGENT_TOKEN": "abc", "GPU_ADVISOR_LANG": "en"},
        tmp=tmp_path,
    )
    assert folder.returncode == 2 and "Is a directory" in folder.stderr


@pytest.mark.e2e  # starts a process
def test_a_hung_or_nonsense_nvidia_smi_is_said_not_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.agent import sampler

    monkeypatch.setattr(sampler, "SMI_TIMEOUT_S", 1)
    hung = tmp_path / "hung"
    hung.mkdir()
    script = hung / "nvidia-smi"
    script.write_text("#!/bin/sh\nsleep 30\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    done = agent(tmp_path, "http://127.0.0.1:9", "abc", {"PATH": f"{hung}{os.pathsep}/usr/bin:/bin"})
    assert done.returncode == 2 and "nvidia-smi did not answer within 1 s" in done.stderr
    nonsense = SMI_OUTPUT.replace(", 3, 1200,", ", inf, nan,")
    odd = agent(tmp_path, "http://127.0.0.1:9", "abc", stand_in_smi(tmp_path, nonsense))
    assert odd.returncode == 2 and "nvidia-smi line 1 is not" in odd.stderr and "Traceback" not in odd.stderr


@pytest.mark.e2e  # starts a process
def test_the_agent_keeps_its_files_in_the_state_directory_not_where_it_runs(tmp_path: Path) -> None:
    """Issue 28.5: the default --buffer was relative, so running the agent from a checkout left
    gpu-advisor-agent.buffer.jsonl in it."""
    where, state = tmp_path / "checkout", tmp_path / "state"
    where.mkdir()
    with running_app(tmp_path) as h:
        _, _, token = tracked(h)
        env = stand_in_smi(tmp_path) | {
            "XDG_STATE_HOME": str(state),
            "GPU_ADVISOR_AGENT_TOKEN": token,
            "GPU_ADVISOR_LANG": "en",
            "GPU_ADVISOR_DB": str(tmp_path / "prices.db"),
        }
        done = run_cli("agent", "--url", "http://127.0.0.1:9", "--once", env=env, tmp=where)  # nothing answers
    assert done.returncode == 1, done.stderr  # could not send: the samples wait in the buffer
    assert list(where.iterdir()) == []
    assert (state / "gpu-advisor" / "agent.buffer.jsonl").read_text().count("utilization_pct") == 2
    assert (state / "gpu-advisor").stat().st_mode & 0o777 == 0o700


def test_a_state_directory_that_cannot_be_made_is_said_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    env = {
        "XDG_STATE_HOME": str(tmp_path / "a-file" / "state"),
        "GPU_ADVISOR_AGENT_TOKEN": "x",
        "GPU_ADVISOR_LANG": "en",
    }
    done = run_cli("agent", "--url", "http://127.0.0.1:9", "--once", env=env, tmp=tmp_path)
    assert done.returncode == 2
    assert "--buffer" in done.stderr and "a-file/state/gpu-advisor/agent.buffer.jsonl" in done.stderr, done.stderr


@pytest.mark.e2e  # starts a process and signals it
def test_the_agent_says_on_at_start_and_off_on_sigterm_and_its_box_bills_only_while_on(tmp_path: Path) -> None:
    import signal

    from bot.state.power import PowerLog
    from rules import metering
    from rules.power import Power

    with running_app(tmp_path) as h:
        rentals, inst, token = tracked(h)
        process = heard_running(h, tmp_path, h.base_url, token, inst)
        try:
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=30)
        finally:
            process.kill()
        assert process.returncode == 0, err
        assert "SIGTERM: telling the bot this box is going off" in err
        said = [(r.state, r.source) for r in PowerLog(h.deps.store).reports([inst])[inst]]
        # on from the tracking, the agent's word that it runs, then its last word as the box goes off
        assert said[0] == (Power.ON, "track") and said[-1] == (Power.OFF, "agent")
        assert (Power.ON, "agent") in said
        box = rentals.by_id(inst)
        assert box is not None
        later = h.clock.now + timedelta(hours=5)
        [stretches] = PowerLog(h.deps.store).timelines([box], later).values()
        assert stretches[-1].state is Power.OFF  # hours later still off: the agent's off holds until it is heard
        # billed by the hour, it bills the two hours tracked before the agent and its seconds on, none after
        hourly = replace(box, billing="hourly")
        assert metering.billed_hours(hourly, stretches, box.started_at, later) == pytest.approx(2.0, abs=0.02)
        again = agent(tmp_path, h.base_url, token, stand_in_smi(tmp_path))  # the box boots again: on
        assert again.returncode == 0, again.stderr
        said = [(r.state, r.source) for r in PowerLog(h.deps.store).reports([inst])[inst]]
        assert said[-2:] == [(Power.OFF, "agent"), (Power.ON, "agent")]


@pytest.mark.e2e  # starts a process and signals it
def test_a_second_sigterm_waits_for_the_off_post(tmp_path: Path) -> None:
    """Issue 53.14: a second SIGTERM during the shutdown post ended the agent with a traceback before its "off"."""
    import signal
    import time
    import urllib.request
    from http.server import BaseHTTPRequestHandler

    from bot.state.power import PowerLog
    from rules.power import Power
    from tests.support.servers import running

    with running_app(tmp_path) as h:
        _rentals, inst, token = tracked(h)

        class SlowOff(BaseHTTPRequestHandler):
            """The bot behind a slow link: the "off" post takes a second to arrive, so a second SIGTERM lands
            while it is on its way."""

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if b'"off"' in body:
                    time.sleep(1.0)
                forwarded = urllib.request.Request(
                    h.base_url + self.path, data=body, headers={k: v for k, v in self.headers.items()}
                )
                with urllib.request.urlopen(forwarded, timeout=10) as answer:
                    status, data = answer.status, answer.read()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                return

        with running(SlowOff) as slow:
            process = heard_running(h, tmp_path, slow, token, inst)
            try:
                process.send_signal(signal.SIGTERM)
                time.sleep(0.4)  # the off post is on its way
                process.send_signal(signal.SIGTERM)
                _, err = process.communicate(timeout=30)
            finally:
                process.kill()
        assert process.returncode == 0 and "Traceback" not in err, err
        said = [(r.state, r.source) for r in PowerLog(h.deps.store).reports([inst])[inst]]
        assert said[-1] == (Power.OFF, "agent")  # the off was posted


def test_the_agent_reads_its_settings_without_building_them_and_by_the_same_bounds(tmp_path: Path) -> None:
    """Issue 50: the agent built every setting (pydantic-settings and each area's model, 18.8 MB of its 46) for its
    language and one timeout. It reads those two from the environment; the timeout's default and bounds are the
    settings model's, and a bad value is refused naming it, as everywhere."""
    import annotated_types

    from bot.cli.agent import TIMEOUT
    from bot.settings.areas import Prices

    field = Prices.model_fields[TIMEOUT]
    bounds = {type(m).__name__: m for m in field.metadata}
    assert field.default == 20 and bounds["Gt"] == annotated_types.Gt(0) and bounds["Le"] == annotated_types.Le(300)
    for bad in ("0", "301", "soon"):
        env = {"GPU_ADVISOR_HTTP_TIMEOUT_S": bad, "GPU_ADVISOR_LANG": "en"}
        done = run_cli("agent", "--url", "http://127.0.0.1:9", "--once", env=env, tmp=tmp_path)
        assert done.returncode == 2 and "http_timeout_s" in done.stderr and repr(bad) in done.stderr, done.stderr


def _nvml_library_here() -> bool:
    import ctypes

    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return False
    return True


@pytest.mark.e2e  # starts a process
def test_the_agent_imports_only_what_it_runs(tmp_path: Path) -> None:
    """Issue 50: the agent's memory is the user's. Without NVML's library (a box without NVIDIA's driver, or a
    container without it, as here) it reads nvidia-smi without importing pynvml (4 MB); it reads no policy and
    builds no settings model. What the process imported, as Python's -X importtime lists it."""
    env = stand_in_smi(tmp_path) | {"PYTHONPROFILEIMPORTTIME": "1", "GPU_ADVISOR_AGENT_TOKEN": "t"}
    done = run_process(
        "agent", "--url", "http://127.0.0.1:9", "--once", "--buffer", str(tmp_path / "b.jsonl"), env=env, tmp=tmp_path
    )
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "Traceback" not in done.stderr and {"bot.agent.sampler", "httpx"} <= imported, done.stderr[-2000:]
    assert not imported & {"rules.policy", "pydantic_settings", "bot.settings.model"}
    if not _nvml_library_here():
        assert "pynvml" not in imported
