"""The order batches go to workers: most bytes first, every file exactly once.

The files are Node.js's real Markdown API docs (sizes from a few hundred bytes to
hundreds of kilobytes), discovered as a run discovers them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fastrag.ingestion._job_workers import batches, largest_first
from fastrag.ingestion.sources import discover
from fastrag.models import Document
from tests._paths import NODE_API_DOCS


@pytest.fixture(scope="module")
def raws() -> list[Document]:
    if not NODE_API_DOCS.is_dir():
        pytest.skip(f"{NODE_API_DOCS} is not installed")
    files = discover(NODE_API_DOCS, include=("*.md",))
    return [source.to_document({}) for source in files if source.state == "accepted"]


def _bytes(batch: list[Document]) -> int:
    return sum(Path(raw.metadata["path"]).stat().st_size for raw in batch)


def test_batches_are_submitted_largest_first(raws: list[Document]) -> None:
    dealt = batches(raws, 2, None)
    ordered = largest_first(dealt)
    sizes = [_bytes(batch) for batch in ordered]
    assert len(dealt) > 4 and sizes == sorted(sizes, reverse=True)
    assert sizes[0] > sizes[-1]
    assert sorted(map(id, ordered)) == sorted(map(id, dealt))  # the same batches, reordered
    assert [raw.source_id for batch in sorted(ordered, key=dealt.index) for raw in batch] == [
        raw.source_id for raw in raws
    ]


def test_equal_batches_keep_their_order(raws: list[Document]) -> None:
    singles = [[raw] for raw in raws[:3]] * 2
    assert largest_first([[], *singles, []])[-2:] == [[], []]
    assert [batch[0].source_id for batch in largest_first(singles)] == [
        batch[0].source_id for batch in sorted(singles, key=_bytes, reverse=True)
    ]
