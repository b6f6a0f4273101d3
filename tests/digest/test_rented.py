"""I rented this: from a recommendation to a tracked instance through the pre-filled track form."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bot.state.rentals import Rentals
from tests.slack.test_commands import header_posts, submit
from tests.support.slack_harness import running_app


def views(h: Any, count: int) -> list[dict[str, Any]]:
    return h.fake.wait_for(lambda: (v := h.fake.of("views.open")) and len(v) >= count and v)  # type: ignore[no-any-return]


def test_i_rented_this_opens_the_form_prefilled_and_tracks_the_instance(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.send.command("10h mem=70/80 mp=no freq=daily resume=no", response_url=h.fake.response_url())
        (rec,) = h.fake.wait_for(lambda: header_posts(h))
        h.send.click(rec, "rented")
        view = views(h, 1)[0]["view"]
        view = json.loads(view) if isinstance(view, str) else view
        initial = {b["block_id"]: b["element"].get("initial_value") for b in view["blocks"]}
        assert initial["gpu"] == "A100-80GB" and initial["cards"] == "1"

        status, body = submit(h, view, {"name": "my box", "gpu": "A100-80GB", "price": "cheap"})
        errors = json.loads(body)["errors"]
        assert status == 200 and set(errors) == {"name", "price"}  # the modal stays open, each error in place
        unknown = json.loads(submit(h, view, {"name": "box", "gpu": "Z9000"})[1])["errors"]["gpu"]
        assert unknown.endswith("K100, S4000"), unknown  # whole: the list of every model was cut mid-name there
        assert Rentals(h.deps.store).instances("T1") == []

        status, body = submit(h, view, {"name": "train-1", "gpu": "A100-80GB", "price": "400/day", "cards": "1"})
        assert status == 200 and body == ""
        [note] = h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))
        assert note["user"] == "U1" and ("shown once" in note["text"] or "只显示这一次" in note["text"])
        [inst] = Rentals(h.deps.store).instances("T1")
        assert (inst.name, inst.owner, inst.channel, inst.price, inst.unit) == ("train-1", "U1", "C1", 400.0, "day")

        status, body = submit(h, view, {"name": "train-1", "gpu": "A100-80GB", "price": "400/day"})
        taken = json.loads(body)["errors"]["name"]  # a taken name, under its field, within what a modal shows
        assert "train-1" in taken and "`billing train-1 …`" in taken and len(taken) <= 150, taken


def test_track_alone_opens_the_empty_form(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.send.command("track", response_url=h.fake.response_url())
        view = views(h, 1)[0]["view"]
        view = json.loads(view) if isinstance(view, str) else view
        assert view["callback_id"] == "track_form"
        assert [b["block_id"] for b in view["blocks"]] == [
            "name",
            "gpu",
            "price",
            "cards",
            "share",
            "project",
            "started",
        ]


def test_a_start_typed_in_the_form_is_read_on_the_submitters_clock_and_billed_from(tmp_path: Path) -> None:
    """The form had no start: a box rented yesterday and tracked today was billed from the submission. Now it takes
    `started` as chat's `started=` does, on the submitter's Slack time zone, and refuses what is not a past time
    under the field, the modal still open."""
    with running_app(tmp_path) as h:
        h.clock.now = datetime(2026, 12, 6, 15, 30, tzinfo=UTC)  # 10:30 in New York, 23:30 in Shanghai
        h.fake.zones["U1"] = "America/New_York"
        h.send.command("track", response_url=h.fake.response_url())
        view = views(h, 1)[0]["view"]
        view = json.loads(view) if isinstance(view, str) else view
        box = {"name": "late-1", "gpu": "A100-80GB", "price": "14/h"}
        for said, error in (
            # whole, in the room under a field (the long form of it, with ISO 8601, was cut mid-sentence there)
            ("soon", "'soon' is not a time: e.g. yesterday 9:00, 9am, 2h ago, 12-01 9:00"),
            ("today 11am", "2026-12-06 11:00 America/New_York is in the future"),
        ):
            status, body = submit(h, view, box | {"started": said})
            assert status == 200 and error in json.loads(body)["errors"]["started"], body
        assert Rentals(h.deps.store).instances("T1") == []
        status, body = submit(h, view, box | {"started": "yesterday 9pm"})
        assert (status, body) == (200, "")
        [note] = h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))
        [inst] = Rentals(h.deps.store).instances("T1")
        assert inst.started_at == datetime(2026, 12, 5, 21, tzinfo=ZoneInfo("America/New_York"))
        assert "2026-12-05 21:00 America/New_York" in note["text"]
