"""A cloud's problem is one line in the reader's language: English where it is logged, kept and shown to an
English reader (what it always said), Chinese in a Chinese digest thread or terminal, the cloud's own words
inside it kept as the cloud said them, a problem inside another said in the same language."""

from __future__ import annotations

import pytest

from bot.discover.cloud import CloudError
from bot.discover.tencent import tencent_problem
from bot.text import Lang
from bot.text.problem import Problem, said


class SdkError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def test_a_problem_is_its_english_sentence_and_says_itself_in_chinese() -> None:
    inner = tencent_problem(SdkError("UnsupportedOperation.StoppedModeStopCharging", "该实例不支持关机不收费"))
    refused = Problem("cloud.no_free_stop", cloud=Problem("cloud.name_tencent"), instance="ins-1a2b", why=inner)
    assert refused == (
        "Tencent Cloud cannot stop ins-1a2b without charge (UnsupportedOperation.StoppedModeStopCharging: "
        "该实例不支持关机不收费); it was left running: release it in the console when it is no longer needed"
    )
    assert refused.said(Lang.ZH) == (
        "腾讯云无法以关机不收费的方式停掉 ins-1a2b（UnsupportedOperation.StoppedModeStopCharging："
        "该实例不支持关机不收费）；它仍在运行：不再需要时请在控制台释放"
    )
    error = CloudError(refused, final=True)
    assert str(error) == refused and said(error.problem, "zh") == refused.said(Lang.ZH)
    assert said("a plain line", "zh") == "a plain line"


@pytest.mark.parametrize(
    ("code", "zh"),
    [
        (
            "AuthFailure.SecretIdNotFound",
            "腾讯云拒绝了凭证（AuthFailure.SecretIdNotFound）：请检查 SecretId 和 SecretKey",
        ),
        ("RequestLimitExceeded", "被腾讯云限流（RequestLimitExceeded），重试后仍失败：下一轮会再试"),
        ("InvalidRegion", "未知区域 ap-mars（InvalidRegion）：请检查 GPU_ADVISOR_TENCENT_REGIONS"),
    ],
)
def test_the_clouds_problems_in_chinese(code: str, zh: str) -> None:
    problem = tencent_problem(SdkError(code, "x"), "ap-mars")
    assert isinstance(problem, Problem) and problem.said(Lang.ZH) == zh
