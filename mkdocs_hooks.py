"""MkDocs hooks: CONTRIBUTING.md (at the root, where people look for it) is also the docs' Contributing page,
one file, with its links into docs/ made relative to the pages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).parent


def on_files(files: Files, config: Any) -> Files:
    text = (ROOT / "CONTRIBUTING.md").read_text("utf-8")
    text = re.sub(r"\]\(docs/", "](", text)
    files.append(File.generated(config, "contributing.md", content=text))
    return files
