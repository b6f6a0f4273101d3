"""The documentation as the tests read it: the README (the front page) and the MkDocs pages in docs/."""

from __future__ import annotations

from functools import cache

from tests.support.cli import ROOT

DOCS = ROOT / "docs"


@cache
def readme() -> str:
    return (ROOT / "README.md").read_text("utf-8")


@cache
def page(name: str) -> str:
    """One page of docs/ (`terminal.md`, ...)."""
    return (DOCS / name).read_text("utf-8")


@cache
def all_docs() -> str:
    """Every page of docs/, one after another: where a command, flag or setting must appear somewhere."""
    return "\n".join(p.read_text("utf-8") for p in sorted(DOCS.rglob("*.md")))


def between(text: str, start: str, end: str) -> str:
    """The text between two markers (`<!-- x:start -->` ... `<!-- x:end -->`)."""
    return text.split(start, 1)[1].split(end, 1)[0]
