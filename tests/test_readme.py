"""Every Python example in README.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_examples() -> None:
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("source", BLOCKS, ids=[f"example-{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(source: str) -> None:
    exec(compile(source, str(README), "exec"), {"__name__": "readme_example"})
