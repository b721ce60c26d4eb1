"""The summary figures and the histogram's bins, against hand-computed values."""

from __future__ import annotations

from pathlib import Path

import pytest

from fastrag.inspection import inspect_file, nearest_rank, summarize
from fastrag.inspection._svg import Bin, histogram_svg, token_bins
from tests._paths import REPO


@pytest.mark.parametrize(
    ("values", "percent", "expected"),
    [
        ([], 50, 0),
        ([7], 95, 7),
        ([4, 1, 3, 2], 50, 2),  # rank ceil(0.5 * 4) = 2
        ([4, 1, 3, 2], 95, 4),  # rank ceil(0.95 * 4) = 4
        (list(range(1, 21)), 95, 19),  # rank ceil(0.95 * 20) = 19
        (list(range(1, 21)), 100, 20),
    ],
)
def test_nearest_rank(values: list[int], percent: float, expected: int) -> None:
    assert nearest_rank(values, percent) == expected


def test_bins_cover_every_count_and_the_budget() -> None:
    bins = token_bins([0, 5, 9, 10, 39], budget=30, bins=4)
    # upper = 39, width = 39 // 4 + 1 = 10
    assert bins == (Bin(0, 10, 3), Bin(10, 20, 1), Bin(20, 30, 0), Bin(30, 40, 1))
    assert token_bins([], None, bins=2) == (Bin(0, 1, 0), Bin(1, 2, 0))


def test_histogram_draws_one_bar_per_nonempty_bin_and_the_budget() -> None:
    svg = histogram_svg([0, 5, 9, 10, 39], budget=30)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    # 20 bins of width 39 // 20 + 1 = 2: every count falls in its own bin.
    assert svg.count("<rect") == 5
    assert 'class="budget"' in svg and "budget 30" in svg
    assert "budget" not in histogram_svg([1, 2], budget=None).replace("aria-label", "")


def test_summary_of_a_real_document() -> None:
    path = REPO / "examples" / "documents" / "mixed.md"
    inspection = inspect_file(path, max_tokens=62)
    summary = summarize(inspection)
    counts = sorted(record["token_estimate"] for record in inspection.records)
    assert summary.chunks == len(counts) == 3
    assert summary.tokens_max == counts[-1]
    assert summary.tokens_p50 == counts[1]  # nearest rank ceil(0.5 * 3) = 2
    assert summary.tokens_total == sum(counts)
    assert summary.characters == len(inspection.content)
    assert summary.offset_modes == (("map", 3),)
    assert (summary.max_tokens, summary.target_tokens, summary.tokenizer) == (
        62,
        41,
        "cl100k_base",
    )
    assert 0 < summary.covered_characters <= summary.characters
    rows = dict(summary.rows())
    assert rows["Tokens p50 / p95 / max"] == f"{counts[1]} / {counts[2]} / {counts[2]}"
    assert rows["Budget"] == "max 62, target 41, overlap 0"


def test_a_chunker_without_a_budget_says_so(tmp_path: Path) -> None:
    inspection = inspect_file(REPO / "examples" / "documents" / "wiki.md", chunker="heading")
    summary = summarize(inspection)
    assert summary.max_tokens is None
    assert dict(summary.rows())["Budget"].startswith("none")
