"""A capture uploaded into a profile's thread, through the real app over signed HTTP, with the files
served and received by the local fake Slack: figures, chart, and the measured answers pre-filled."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.slack.test_conversation import button, question_posts, start, wait_question
from tests.support.cli import ROOT
from tests.support.slack_harness import Harness, running_app

SMI = (ROOT / "tests" / "data" / "captures" / "nvidia-smi-query.csv").read_bytes()
DMON = (ROOT / "tests" / "data" / "captures" / "nvidia-smi-dmon.txt").read_bytes()


def whole_run(minutes: int = 150, busy_mib: int = 40960) -> bytes:
    """A probe capture holding a whole run: 2 quiet minutes, the run, 2 quiet minutes (one row a minute)."""
    t0 = datetime(2026, 11, 30, 1, 0, tzinfo=UTC)
    rows = ["timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib,power_w"]
    for m in range(minutes + 4):
        busy = 2 <= m < minutes + 2
        at = (t0 + timedelta(minutes=m)).isoformat()
        rows.append(f"{at},0,{95 if busy else 0},{busy_mib if busy else 500},81920,300")
    return ("\n".join(rows) + "\n").encode()


def upload(h: Harness, thread: str, file_id: str, name: str, data: bytes, *, user: str = "U1", n: int = 1) -> None:
    h.fake.files[file_id] = (name, data)
    status, _ = h.send.event(
        {
            "type": "message",
            "subtype": "file_share",
            "channel": "C1",
            "user": user,
            "text": "",
            "ts": f"1700000100.{n:06d}",
            "thread_ts": thread,
            "files": [{"id": file_id, "name": name}],
        },
        event_id=f"EvUp{n}",
    )
    assert status == 200


def thread_texts(h: Harness, thread: str) -> list[str]:
    return [str(p.get("text")) for p in h.posts(thread_ts=thread)]


def test_analyze_then_upload_answers_duration_and_memory_and_posts_the_chart(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        status, _ = h.send.command("analyze", response_url=h.fake.response_url())
        assert status == 200
        root = h.wait_posts(1)[0]
        thread = root["_ts"]
        h.fake.wait_for(lambda: any("Upload a capture" in t for t in thread_texts(h, thread)))
        kind = h.fake.wait_for(lambda: question_posts(h, thread, kind=True))[0]
        upload(h, thread, "F1", "capture.csv", whole_run())
        summary = h.fake.wait_for(lambda: [t for t in thread_texts(h, thread) if t.startswith("Capture")])[0]
        assert "GPU 0: utilisation mean" in summary and "Continuity: high. Memory tight: no." in summary
        assert "`dur=2.5h`, `mem=40/80`" in summary
        (download,) = h.fake.of("download")
        assert download["_auth"] == "Bearer xoxb-test-token" and download["_path"].endswith("/capture.csv")
        done = h.fake.wait_for(lambda: h.fake.of("files.completeUploadExternal"))[0]
        assert done["channel_id"] == "C1" and done["thread_ts"] == thread
        (png,) = h.fake.uploads.values()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
        assert h.send.click(kind, button(kind, "Skip"))[0] == 200  # the kind of work: then question 3 comes
        third = wait_question(h, thread, 1)
        assert "Question 3/5" in str(third["blocks"])
        convo = h.deps.conversations.by_thread("T1", "C1", thread)
        assert convo is not None and convo.answers["duration"] == "2.5h" and convo.answers["memory"] == "40/80"


def test_an_upload_at_the_open_question_answers_it_and_keeps_what_was_answered(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        thread = start(h)["_ts"]
        first = wait_question(h, thread, 1)
        assert h.send.click(first, button(first, "Over 8 h"))[0] == 200
        wait_question(h, thread, 2)  # the memory question is open
        upload(h, thread, "F2", "smi.csv", SMI)
        third = wait_question(h, thread, 3)
        assert "Question 3/5" in str(third["blocks"])
        said = "\n".join(thread_texts(h, thread))
        assert "`mem=74/80`" in said and "does not measure the whole run" in said
        answered = [u for u in h.fake.of("chat.update") if "74/80" in str(u.get("blocks"))]
        assert answered, "the memory question's message is marked answered"
        convo = h.deps.conversations.by_thread("T1", "C1", thread)
        assert convo is not None and convo.answers["duration"] == ">8h" and convo.answers["memory"] == "74/80"
        upload(h, thread, "F3", "again.csv", whole_run(), n=2)  # both are answered now: kept, and said so
        h.fake.wait_for(lambda: any("Your answers stay as they are" in t for t in thread_texts(h, thread)))
        h.fake.wait_for(lambda: len(h.fake.of("files.completeUploadExternal")) == 2)
        convo = h.deps.conversations.by_thread("T1", "C1", thread)
        assert convo is not None and convo.answers["duration"] == ">8h"


def test_files_that_cannot_be_used_are_explained_in_the_users_language(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.fake.locales["U7"] = "zh-CN"
        thread = start(h, user="U7", skip_kind=False)["_ts"]
        upload(h, thread, "F4", "notes.txt", b"a,b\n1,2\n", user="U7")
        said = h.fake.wait_for(lambda: [t for t in thread_texts(h, thread) if "无法读取" in t])[0]
        assert "`notes.txt`" in said and "第 1 行" in said and "无法识别的列" in said
        upload(h, thread, "F5", "dmon.txt", DMON, user="U7", n=2)  # dmon without the GPU answered: no total
        h.fake.wait_for(lambda: any("没有显存总量" in t for t in thread_texts(h, thread)))
        h.fake.file_host = "files.example.com"  # a URL off Slack's hosts never gets the token
        upload(h, thread, "F6", "c.csv", SMI, user="U7", n=3)
        h.fake.wait_for(lambda: any("不在 Slack 中存储" in t for t in thread_texts(h, thread)))
        assert len(h.fake.of("download")) == 2
        convo = h.deps.conversations.by_thread("T1", "C1", thread)
        assert convo is not None and "memory" not in convo.answers


def test_a_file_slack_will_not_hand_over_is_explained(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        thread = start(h)["_ts"]
        h.fake.download_answer = (200, "text/html", b"<html>Sign in to Slack</html>")  # no files:read scope
        upload(h, thread, "F11", "c.csv", SMI)
        h.fake.wait_for(lambda: any("needs the files:read scope" in t for t in thread_texts(h, thread)))
        h.fake.download_answer = (500, "text/plain", b"oops")
        upload(h, thread, "F12", "c.csv", SMI, n=2)
        h.fake.wait_for(lambda: any("(HTTP 500)" in t for t in thread_texts(h, thread)))
        h.fake.errors["files.info"] = "file_not_found"  # deleted before the bot read it
        upload(h, thread, "F13", "c.csv", SMI, n=3)
        h.fake.wait_for(lambda: any("gone from Slack" in t for t in thread_texts(h, thread)))
        convo = h.deps.conversations.by_thread("T1", "C1", thread)
        assert convo is not None and "memory" not in convo.answers


def test_a_file_too_large_is_not_downloaded(tmp_path: Path) -> None:
    with running_app(tmp_path, capture_max_bytes=2048) as h:
        thread = start(h)["_ts"]
        upload(h, thread, "F7", "big.csv", whole_run(200))
        h.fake.wait_for(lambda: any("larger than" in t for t in thread_texts(h, thread)))
        assert h.fake.of("download") == []


def test_uploads_by_others_and_outside_profiles_are_left_alone(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        thread = start(h)["_ts"]
        upload(h, thread, "F8", "c.csv", SMI, user="U2")
        upload(h, "1699999999.000001", "F9", "c.csv", SMI, n=2)  # not a profile's thread
        h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))  # the starter is told someone else replied
        assert h.fake.of("files.info") == [] and h.fake.of("download") == []


def test_a_service_takes_only_the_memory_from_a_capture(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        thread = start(h, skip_kind=False)["_ts"]
        h.fake.wait_for(lambda: question_posts(h, thread, kind=True))
        h.send.event(
            {
                "type": "message",
                "channel": "C1",
                "user": "U1",
                "text": "inference",
                "ts": "1700000100.9",
                "thread_ts": thread,
            },
            event_id="EvKind",
        )
        h.fake.wait_for(lambda: any("QPS" in t for t in thread_texts(h, thread)))
        upload(h, thread, "F10", "serving.csv", whole_run())
        said = h.fake.wait_for(lambda: [t for t in thread_texts(h, thread) if t.startswith("Capture")])[0]
        assert "`mem=40/80`" in said and "dur=" not in said and "whole run" not in said
        convo = h.deps.conversations.by_thread("T1", "C1", thread)
        assert convo is not None and convo.answers.get("memory") == "40/80" and "duration" not in convo.answers
        h.fake.wait_for(lambda: h.fake.of("files.completeUploadExternal"))


def test_the_measured_figures_are_kept_as_values_not_their_rounded_text_read_back(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        thread = start(h)["_ts"]
        wait_question(h, thread, 1)
        upload(h, thread, "F9", "odd.csv", whole_run(minutes=97, busy_mib=41300))
        h.fake.wait_for(lambda: [t for t in thread_texts(h, thread) if t.startswith("Capture")])
        convo = h.fake.wait_for(
            lambda: (c := h.deps.conversations.by_thread("T1", "C1", thread)) and "memory" in c.values and c
        )
        assert convo.answers["memory"] == "40/80"  # what people are shown
        assert convo.values["memory"]["peak_gb"] == 41300 / 1024 and convo.values["memory"]["card_gb"] == 80


def test_a_file_uploaded_into_an_expired_profile_is_told_once(tmp_path: Path) -> None:
    """Issue 19.18: admit() ran in both branches, so an expired profile's notice was posted twice."""
    with running_app(tmp_path, conversation_ttl_hours=24) as h:
        thread = start(h)["_ts"]
        wait_question(h, thread, 1)
        h.clock.advance(hours=25)
        upload(h, thread, "F20", "late.csv", whole_run())
        h.fake.wait_for(lambda: any("expired" in t for t in thread_texts(h, thread)))
        h.fake.wait_for(lambda: h.deps.inbox.pending(timedelta(hours=1)) == [])  # the upload's work is done
        assert sum("expired" in t for t in thread_texts(h, thread)) == 1
        assert h.fake.of("download") == []


def test_what_comes_from_a_file_is_escaped_before_it_is_posted(tmp_path: Path) -> None:
    """Issue 19.9: `<!channel>` or a `<https://…|…>` link in a capture line or a file name was posted raw."""
    with running_app(tmp_path) as h:
        thread = start(h)["_ts"]
        wait_question(h, thread, 1)
        upload(h, thread, "F30", "<!channel>.csv", b"<!channel>,<https://evil.example|click>\n1,2\n")
        said = h.fake.wait_for(lambda: [t for t in thread_texts(h, thread) if "channel" in t])[0]
        assert "<!channel>" not in said and "<https://" not in said
        assert "&lt;!channel&gt;" in said


def test_a_trickling_download_is_stopped_at_its_deadline_and_said_so(tmp_path: Path) -> None:
    """Issue 20.11: a byte every few seconds kept a download (and its thread) going for as long as it liked."""
    with running_app(tmp_path, capture_timeout_s=0.5) as h:
        h.fake.download_trickle_s = 0.1  # each byte well inside any read timeout; the whole file far beyond 0.5 s
        thread = start(h)["_ts"]
        upload(h, thread, "F8", "slow.csv", whole_run())
        said = h.fake.wait_for(lambda: [t for t in thread_texts(h, thread) if "longer than" in t])[0]
        assert "`slow.csv`" in said and "0.5 s" in said
        convo = h.deps.conversations.by_thread("T1", "C1", thread)
        assert convo is not None and "memory" not in convo.answers


def test_slow_uploads_do_not_hold_back_new_questions(tmp_path: Path) -> None:
    """Issue 20.11: four slow capture downloads took all four worker threads; questions waited a minute."""
    with running_app(tmp_path, capture_timeout_s=30) as h:
        thread = start(h, skip_kind=False)["_ts"]
        h.fake.download_trickle_s = 0.5  # each download would take minutes: cut only at the deadline
        for n in range(1, 5):
            upload(h, thread, f"F{n}", "slow.csv", whole_run(), n=n)
        h.fake.wait_for(lambda: h.fake.of("download"))  # a download is under way
        status, _ = h.send.command("", channel="C2", response_url=h.fake.response_url("2"))
        assert status == 200
        root = h.wait_posts(1, channel="C2")[0]  # a new profile still starts, its first question comes
        h.fake.wait_for(lambda: question_posts(h, root["_ts"], kind=True))
        assert not any(t.startswith("Capture") for t in thread_texts(h, thread))  # while none has finished
