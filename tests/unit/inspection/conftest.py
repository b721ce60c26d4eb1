"""A hostile document for the inspection tests: text that tries to leave every context."""

from __future__ import annotations

from pathlib import Path

import pytest

HOSTILE_PARTS = (
    "<script>alert(1)</script>",
    "</textarea>",
    '"><img src=x onerror=alert(2)>',
    "]]>",
    "</style><style>body{display:none}</style>",
    "</pre></section><script>alert(3)</script>",
    "javascript:alert(4)",
    "&lt;already-escaped&gt; &amp; \u2028\u2029",
)

HOSTILE_NAME = "x\"'><img src=y onerror=alert(5)>.md"
"""A legal file name that is also markup: it appears in the page title and heading."""


def hostile_markdown() -> str:
    """Every hostile part in a heading (section path, title attributes) and in prose,
    with paragraphs long enough for several chunks at a small budget."""
    blocks = ["# Title " + HOSTILE_PARTS[0] + " [bold red]markup[/]"]
    for number, part in enumerate(HOSTILE_PARTS):
        blocks.append(f"## Part {number} {part}")
        prose = " ".join(f"Sentence {i} about {part} in part {number}." for i in range(12))
        blocks.append(prose)
        blocks.append(f"```\n{part}\n```")
    return "\n\n".join(blocks) + "\n"


@pytest.fixture
def hostile_file(tmp_path: Path) -> Path:
    path = tmp_path / HOSTILE_NAME
    path.write_text(hostile_markdown(), encoding="utf-8")
    return path
