"""ruff (format and check) and mypy stay clean: part of the suite so CI keeps them so."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.cli import ROOT

pytestmark = pytest.mark.e2e  # every test here starts a process


@pytest.mark.lint
def test_the_code_is_formatted_by_ruff() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.lint
def test_ruff_is_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.lint
def test_mypy_is_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
