from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from slack_sdk.models.views import View

from bot.chat.conversation import current
from tests.support.bundled import BUNDLED_ROWS
from tests.support.fake_slack import sign
from tests.support.slack_harness import SECRET, Harness, running_app


def header_posts(h: Harness) -> list[dict[str, Any]]:
    return [p for p in h.posts() if (p.get("blocks") or [{}])[0].get("type") == "header"]


def responses(h: Harness) -> list[dict[str, Any]]:
    return h.fake.of("response_url")


def submit(h: Harness, view: dict[str, Any], values: dict[str, str], user: str = "U1") -> tuple[int, str]:
    state = {key: {"value": {"type": "plain_text_input", "value": text}} for key, text in values.items()}
    return h.send.interaction(
        {
            "type": "view_submission",
            "team": {"id": "T1"},
            "user": {"id": user, "team_id": "T1"},
            "api_app_id": "A1",
            "trigger_id": "555.666.xyz",
            "view": {
                "id": "V1",
                "type": "modal",
                "callback_id": view["callback_id"],
                "private_metadata": view["private_metadata"],
                "state": {"values": state},
            },
        }
    )


def test_inline_answers_give_the_recommendation_at_once(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        status, body = h.send.command(
            "10h mem=70/80 mp=no freq=daily resume=不能 workload=lora hours=4x14", response_url=h.fake.response_url()
        )
        assert (status, body) == (200, "")
        (rec,) = h.fake.wait_for(lambda: header_posts(h))
        text = h.texts(rec)
        assert rec["channel"] == "C1"
        assert rec["blocks"][0]["text"]["text"] == "Recommendation: Dedicated card: A100-80GB"
        # a 70 GB peak holds on no slice smaller than the card: the shared row is a whole card by the hour
        assert "¥5,600" in text and "¥1,568" in text and "¥784" not in text
        assert "No spot: the job cannot resume" in text
        assert "Assumed from your answers" not in text  # hours=4x14 was given


def test_inline_with_a_bad_value_names_the_key_typed_and_points_to_help(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.fake.locales["U2"] = "zh-CN"
        h.send.command("10h memory=lots mp=no freq=daily resume=no", response_url=h.fake.response_url("en"))
        h.send.command("10h 显存=很多 mp=no freq=daily resume=no", user="U2", response_url=h.fake.response_url("zh"))
        replies = {r["_path"]: r for r in h.fake.wait_for(lambda: len(responses(h)) == 2 and responses(h))}
        english, chinese = replies["/response/en"], replies["/response/zh"]
        assert english["response_type"] == "ephemeral"
        assert "`memory`: Could not read 'lots'" in english["text"] and "70 GB of 80" in english["text"]
        assert "`/gpu-advise help` lists every key" in h.texts(english)
        assert "`form`" not in h.texts(english)  # the whole usage is not repeated
        assert "`显存`：无法识别“很多”" in chinese["text"] or "`显存`: 无法识别“很多”" in chinese["text"]
        assert header_posts(h) == []


def test_inline_with_missing_answers_keeps_them_and_asks_the_rest(tmp_path: Path) -> None:
    """It answered "Missing answers: `mp`, `freq`, `resume`", and every answer was typed again: the profile now
    keeps those given, says so under its first message, and asks only the rest in its thread."""
    with running_app(tmp_path) as h:
        h.send.command("10h mem=70/80", response_url=h.fake.response_url())
        (root,) = h.fake.wait_for(lambda: [p for p in h.posts() if "Kept from your line" in h.texts(p)])
        assert "Kept from your line: 10h, mem=70/80." in h.texts(root), h.texts(root)
        convo = h.fake.wait_for(lambda: h.deps.conversations.by_thread("T1", root["channel"], root["_ts"]))
        assert convo.answers == {"duration": "10h", "memory": "70/80"}
        step = current(convo)
        assert convo.values["duration"]["hours"] == 10.0 and step is not None and step.ask.key == "workload"


def test_unknown_subcommand_and_unknown_key(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.send.command("bananas", response_url=h.fake.response_url("a"))
        h.send.command("10h color=blue", response_url=h.fake.response_url("b"))
        replies = h.fake.wait_for(lambda: len(responses(h)) == 2 and responses(h))
        by_path = {r["_path"]: r["text"] for r in replies}
        assert "unknown sub-command 'bananas'" in by_path["/response/a"]
        assert "unknown key 'color'; keys:" in by_path["/response/b"]


def replies_to(h: Harness, commands: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Each command sent with a response_url of its own, and the replies by that url's path."""
    for label, text in commands.items():
        h.send.command(text, response_url=h.fake.response_url(label))
    return {r["_path"]: r for r in h.fake.wait_for(lambda: len(responses(h)) == len(commands) and responses(h))}


def test_help_prices_and_quote(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        replies = replies_to(
            h,
            {"help": "help", "prices": "prices A100", "quote": "quote gpu=A100 hours=4x14 share=1/2",
             "badquote": "quote gpu=A100"},
        )  # fmt: skip
        assert "`form`" in replies["/response/help"]["text"]
        prices = h.texts(replies["/response/prices"])
        assert "A100-80GB" in prices and "400 CNY/day" in prices and "ratecard" in prices
        quote = replies["/response/quote"]
        assert quote["response_type"] == "in_channel"
        assert "¥5,600" in h.texts(quote) and "¥784" in h.texts(quote)
        assert "give the schedule: hours=4x14" in replies["/response/badquote"]["text"]


def test_modal_shows_errors_inline_then_posts_the_recommendation(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.send.command("form", trigger_id="999.888.form", response_url=h.fake.response_url())
        (opened,) = h.fake.wait_for(lambda: h.fake.of("views.open"))
        assert opened["trigger_id"] == "999.888.form"
        view = opened["view"]
        View(**view).validate_json()
        status, body = submit(h, view, {"duration": "forever-ish", "memory": "70/80", "model_parallel": "no"})
        assert status == 200
        errors = json.loads(body)
        assert errors["response_action"] == "errors"
        assert set(errors["errors"]) == {"duration", "frequency", "can_resume"}
        assert "Could not read" in errors["errors"]["duration"]
        assert errors["errors"]["frequency"] == "This question needs an answer."
        assert header_posts(h) == []
        status, body = submit(
            h,
            view,
            {
                "duration": "3h",
                "memory": "20GB",
                "model_parallel": "no",
                "frequency": "weekly",
                "can_resume": "yes",
                "workload": "hpo",
            },
        )
        assert (status, body) == (200, "")
        (rec,) = h.fake.wait_for(lambda: header_posts(h))
        assert rec["channel"] == "C1"
        assert "Shared card" in rec["blocks"][0]["text"]["text"]
        assert "Hyper-parameter search" in h.texts(rec)


def test_change_an_answer_opens_the_modal_prefilled(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.send.command("10h mem=70/80 mp=no freq=daily resume=no", response_url=h.fake.response_url())
        (rec,) = h.fake.wait_for(lambda: header_posts(h))
        h.send.click(rec, "change_answers")
        (opened,) = h.fake.wait_for(lambda: h.fake.of("views.open"))
        blocks = {b["block_id"]: b for b in opened["view"]["blocks"]}
        assert blocks["duration"]["element"]["initial_value"] == "10h"
        assert blocks["memory"]["element"]["initial_value"] == "70/80"
        submit(
            h,
            opened["view"],
            {"duration": "2h", "memory": "70/80", "model_parallel": "no", "frequency": "daily", "can_resume": "yes"},
        )
        second = h.fake.wait_for(lambda: len(header_posts(h)) == 2 and header_posts(h))[1]
        assert "Shared card" in second["blocks"][0]["text"]["text"]  # 2 h and resumable: one hit left
        assert second["thread_ts"] == rec["_ts"]  # posted under the recommendation it changes


def test_bad_signature_and_stale_timestamp_are_refused(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        before = list(h.fake.methods())
        status, _ = h.send.command("", signature="v0=" + "0" * 64)
        assert status == 401
        old = str(int(time.time()) - 6 * 60)
        body = b"token=x&team_id=T1&user_id=U1&channel_id=C1&command=%2Fgpu-advise&text="
        status, _ = h.send.post(
            body, "application/x-www-form-urlencoded", timestamp=old, signature=sign(SECRET, old, body)
        )
        assert status == 401
        time.sleep(0.3)
        assert h.fake.methods() == before  # nothing reached Slack


def test_signing_matches_slacks_documented_example() -> None:
    body = (
        b"token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V"
        b"&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text="
        b"&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN"
        b"&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c"
    )
    assert sign("8f742231b10e8888abcd99yyyzzz85a5", "1531420618", body) == (
        "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"
    )


def test_not_in_channel_continues_in_a_dm(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.fake.refuse_channels["CPRIV"] = "not_in_channel"
        h.send.command("", channel="CPRIV", response_url=h.fake.response_url())
        root = h.fake.wait_for(lambda: h.posts(channel="DU1"))[0]
        assert "not_in_channel" in h.texts(root) and "<#CPRIV>" in h.texts(root)
        assert h.fake.of("conversations.open")[0]["users"] == "U1"
        question = h.fake.wait_for(lambda: h.posts(channel="DU1", thread_ts=root["_ts"]))
        assert question[0]["text"] == "What kind of workload is it?"
        (note,) = h.fake.wait_for(lambda: responses(h))
        assert note["response_type"] == "ephemeral" and "DM" in note["text"]


def test_rate_limited_call_is_retried_after_retry_after(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.fake.rate_limit_once.add("chat.postMessage")
        started = time.monotonic()
        h.send.command("", response_url=h.fake.response_url())
        root = h.fake.wait_for(lambda: [p for p in h.posts() if "_ts" in p])[0]
        assert time.monotonic() - started >= 0.9  # waited for Retry-After: 1
        attempts = [c for c in h.fake.of("chat.postMessage") if c.get("text") == root["text"]]
        assert len(attempts) == 2  # the 429, then the success
        h.fake.wait_for(lambda: h.posts(thread_ts=root["_ts"]))


def test_app_home_shows_recent_recommendations_and_sources(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.send.command("10h mem=70/80 mp=no freq=daily resume=no", response_url=h.fake.response_url())
        h.fake.wait_for(lambda: header_posts(h))
        h.fake.wait_for(lambda: h.deps.users.recent_recommendations("T1", "U1"))  # kept right after it is posted
        h.send.event({"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home"}, event_id="EvHome")
        (published,) = h.fake.wait_for(lambda: h.fake.of("views.publish"))
        assert published["user_id"] == "U1"
        View(**published["view"]).validate_json()
        text = json.dumps(published["view"], ensure_ascii=False)
        assert "Dedicated card" in text and "10h" in text
        assert "`ratecard` STALE: " in text and f"of {BUNDLED_ROWS} rows" in text  # as `prices status` says
        home_button = {"blocks": published["view"]["blocks"], "channel": "D1"}
        h.send.click(home_button, "new_profile")
        h.fake.wait_for(lambda: [p for p in h.posts(channel="DU1") if "a few questions" in str(p.get("text"))])


def test_quote_subcommand_errors_are_specific(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.send.command("quote gpu=A100 hours=4x14 cards=1.5", response_url=h.fake.response_url("cards"))
        h.send.command("quote gpu=B300 hours=4x14", response_url=h.fake.response_url("gpu"))
        h.send.command("quote gpu=A100 hours=30x2", response_url=h.fake.response_url("hours"))
        replies = {r["_path"]: r["text"] for r in h.fake.wait_for(lambda: len(responses(h)) == 3 and responses(h))}
        assert "a whole number of cards; use share=1/2" in replies["/response/cards"]
        assert "unknown GPU model 'B300'. Known models:" in replies["/response/gpu"]
        assert "a day has at most 24 hours" in replies["/response/hours"]


def test_a_quote_by_total_gpu_hours_as_the_terminal_takes_it(tmp_path: Path) -> None:
    """The terminal had --gpu-hours; chat answered `gpu_hours=100` with an unknown key. Its title is the terminal's
    (rounded: 100 GPU-hours back to back are 4.2 days, not 4.166666666666667)."""
    with running_app(tmp_path) as h:
        replies = replies_to(
            h,
            {"total": "quote gpu=A100 gpu_hours=100", "zh": "quote gpu=A100 卡时=100h share=1/2",
             "both": "quote gpu=A100 gpu_hours=5 hours=2x3", "bad": "quote gpu=A100 gpu_hours=lots"},
        )  # fmt: skip
        total = replies["/response/total"]
        want = "Cost for A100-80GB × 1, 100 GPU-hours (priced as one run back to back, 4.2 days)"
        assert total["text"] == want, total["text"]
        assert "¥2,000" in h.texts(total)  # the daily card: 5 days started x ¥400, as `gpu-advise quote` says
        assert ", 100 GPU-hours (" in replies["/response/zh"]["text"]
        assert "give hours=HxD, or gpu_hours=N" in replies["/response/both"]["text"]
        assert "gpu_hours=lots: not a number" in replies["/response/bad"]["text"]


def test_inline_with_chinese_keys_and_values_for_a_chinese_user(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.fake.locales["U8"] = "zh-CN"
        h.send.command(
            "时长=10小时 显存=70G/80G 并行=否 频率=每周两次 恢复=能 类型=超参搜索",
            user="U8",
            response_url=h.fake.response_url(),
        )
        h.send.command("help", user="U8", response_url=h.fake.response_url("help"))
        (rec,) = h.fake.wait_for(lambda: header_posts(h))
        assert rec["blocks"][0]["text"]["text"] == "建议: 独占卡：A100-80GB"  # long run + memory tight
        assert "超参数搜索" in h.texts(rec) and "低频运行" in h.texts(rec)
        (helped,) = h.fake.wait_for(lambda: responses(h))
        assert "在帖子里回答问题（先说任务类型）" in helped["text"]


def test_inline_inference_needs_only_qps_and_p99(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.send.command("workload=inference qps=300 p99=40ms", response_url=h.fake.response_url())
        (rec,) = h.fake.wait_for(lambda: header_posts(h))
        text = h.texts(rec)
        assert rec["blocks"][0]["text"]["text"] == "Recommendation: Dedicated card: A100-80GB"
        assert "24 h/day × 30 days" in text and "No spot: a latency-critical service" in text
        assert "Release instances" not in text


def test_a_schedule_past_the_bounds_is_a_clear_error_not_a_failure(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.send.command("10h mem=70/80 mp=no freq=daily resume=no hours=1x3661", response_url=h.fake.response_url())
        (reply,) = h.fake.wait_for(lambda: responses(h))
        assert "the days must be from 1 to 3,660" in reply["text"]
        assert h.fake.of("chat.postEphemeral") == []  # no "Something went wrong"


def test_a_service_gets_its_serving_memory_in_slack_as_in_the_terminal(tmp_path: Path) -> None:
    """Issue 17: question 2 of a service takes the served model in Slack too (here inline, quoted)."""
    with running_app(tmp_path) as h:
        h.send.command(
            'workload=inference qps=20 p99=300ms mem="Qwen2.5-7B 8k x 16"', response_url=h.fake.response_url()
        )
        (rec,) = h.fake.wait_for(lambda: header_posts(h))
        text = h.texts(rec)
        assert "MIG 3g.40gb" in rec["blocks"][0]["text"]["text"]
        assert "about 24.2 GB = weights 15.2 + KV cache 7.5 (56 KiB a token" in text
        assert "holds at most 49 requests of 8,192 tokens" in text


def test_quote_compare_yes_lists_each_provider_in_the_channel(tmp_path: Path) -> None:
    from pricing import cache
    from pricing.refresh import refresh

    catalogs = Path(__file__).parents[1] / "data" / "gpuhunt"
    with running_app(tmp_path, gpuhunt_providers="aws,runpod,lambdalabs", gpuhunt_catalog_dir=str(catalogs)) as h:
        db = cache.open_db(h.settings.files.db)
        for source in h.deps.prices.sources:
            if source.name.startswith("gpuhunt:"):
                assert refresh(db, source).ok
        h.fake.locales["U1"] = "en-US"
        h.send.command(
            "quote gpu=H100 hours=8x14 compare=yes currency=USD", user="U1", response_url=h.fake.response_url("compare")
        )
        h.send.command(
            "quote gpu=H100 hours=8x14 provider=lambdalabs currency=USD",
            user="U1",
            response_url=h.fake.response_url("one"),
        )
        h.send.command("quote gpu=H100 hours=8x14 compare=maybe", user="U1", response_url=h.fake.response_url("bad"))
        h.fake.locales["U2"] = "zh-CN"
        h.send.command("quote gpu=H100 hours=8x14 currency=RUB", user="U2", response_url=h.fake.response_url("rub"))
        h.send.command("quote gpu=H100 hours=8x14 provider=nope", user="U2", response_url=h.fake.response_url("nope"))
        replies = {r["_path"]: r for r in h.fake.wait_for(lambda: len(responses(h)) == 5 and responses(h))}
        assert "没有供应商“nope”的 H100-80GB 价格。有价格的供应商：" in replies["/response/nope"]["text"]
        assert replies["/response/rub"]["text"].startswith("currency=RUB 不是可用于报价的货币：请用 AUD, BGN")
        compared = replies["/response/compare"]
        assert compared["response_type"] == "in_channel"
        text = h.texts(compared)
        assert "H100-80GB × 1, 8 h/day × 14 days, at each provider" in text
        order = [text.index(f"*{p}*") for p in ("runpod", "lambdalabs", "aws")]
        assert order == sorted(order)  # cheapest total first: RunPod 2.39, Lambda 2.99, AWS 6.88 USD an hour
        assert "total *$268*" in text and "gpuhunt:aws, 2025-11-30" in text
        assert "(lambdalabs, us-east-1)" in h.texts(replies["/response/one"])
        assert "compare=yes" in replies["/response/bad"]["text"]
