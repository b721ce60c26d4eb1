"""Structure-aware chunks of real documents, compared byte for byte with reviewed files.

Every golden source is chunked with a deliberately small cl100k budget (so sections,
tables, lists and code are split and merged, not just kept whole), validated by the
independent validator first, then serialized one JSON object per chunk.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fastrag.ingestion.records import jsonable
from fastrag.ingestion.steps.chunking import (
    StructureAwareChunker,
    TiktokenTokenizer,
    validate_structure_chunks,
)
from fastrag.models import Document
from tests.golden.conftest import FORMATS, compare_or_regenerate, golden_sources, read_source

CASES = [(fmt, path) for fmt in FORMATS for path in golden_sources(fmt)]
MAX_TOKENS = 300


def _chunker() -> StructureAwareChunker:
    return StructureAwareChunker(
        tokenizer=TiktokenTokenizer("cl100k_base"),
        target_tokens=200,
        max_tokens=MAX_TOKENS,
        min_preferred_tokens=50,
        overlap_tokens=0,
        cache=False,
    )


def _serialize(index: int, content: str, metadata: object) -> str:
    record = {"index": index, "text": content, "metadata": jsonable(metadata)}
    return json.dumps(record, ensure_ascii=False, sort_keys=True)


@pytest.mark.parametrize(
    ("format_name", "source_path"), CASES, ids=[f"{f}/{p.stem}" for f, p in CASES]
)
def test_chunks_match_golden(format_name: str, source_path: Path) -> None:
    document = Document(
        source_path.stem,
        f"golden/{format_name}",
        read_source(source_path),
        {"content_format": format_name},
    )
    chunker = _chunker()
    normalized = chunker.normalizers.normalize(document)
    pieces = list(chunker.split_normalized(normalized))
    report = validate_structure_chunks(normalized, pieces, chunker.tokenizer, MAX_TOKENS)
    assert report.chunk_count == len(pieces)
    lines = [_serialize(i, content, meta) for i, (content, meta) in enumerate(pieces)]
    actual = "".join(line + "\n" for line in lines)
    compare_or_regenerate(source_path.with_suffix(".chunks.jsonl"), actual)
