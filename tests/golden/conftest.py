"""Golden files: ``tests/golden/<format>/<name>.src`` and the expected outputs beside it.

Set ``FASTRAG_REGENERATE_GOLDEN=1`` to rewrite the expected files from the current code;
``test_regeneration_switch_is_off`` fails whenever that switch is left on, so a
regenerated run can never pass as a verification run.
"""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN_ROOT = Path(__file__).parent
REGENERATE = os.environ.get("FASTRAG_REGENERATE_GOLDEN") == "1"
FORMATS = ("text", "markdown", "rst", "html")


def golden_sources(format_name: str) -> list[Path]:
    return sorted((GOLDEN_ROOT / format_name).glob("*.src"))


def read_source(path: Path) -> str:
    # Bytes, then UTF-8: no newline translation, so \r\n documents stay as they are.
    return path.read_bytes().decode("utf-8")


def compare_or_regenerate(expected_path: Path, actual: str) -> None:
    if REGENERATE:
        expected_path.write_bytes(actual.encode("utf-8"))
        return
    assert expected_path.exists(), (
        f"{expected_path} is missing; run with FASTRAG_REGENERATE_GOLDEN=1 to create it, "
        "then review the diff"
    )
    expected = expected_path.read_bytes().decode("utf-8")
    assert actual == expected, f"{expected_path.name} differs from the golden file"
