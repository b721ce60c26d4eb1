"""Shared helpers for the packing-engine tests: tokenizers, documents, invariant checks.

``check_pieces`` states the engine's contract directly (budget on the complete embedding
text, exact partition of the retained units, map runs that round-trip) *and* runs the
independent validator, so a bug shared by engine and validator still has to get past
plain assertions written from the contract.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from functools import cache
from math import ceil
from pathlib import Path
from typing import Any

from fastrag.ingestion.steps.chunking.structure import StructureAwareChunker
from fastrag.models import Document
from fastrag.normalization import CoverageUnit, NormalizedDocument, NormalizerRegistry
from fastrag.packing import PackingConfig, build_embedding_text
from fastrag.packing.validation import ChunkValidation
from fastrag.packing.validator import validate_structure_chunks
from fastrag.tokenization import HuggingFaceTokenizer, TiktokenTokenizer, Utf8ByteTokenizer
from tests.unit.tokenization.conftest import train_bert_wordpiece

__all__ = [
    "NonAdditiveTokenizer",
    "check_pieces",
    "last_lines_of_validated_chunks",
    "normalize",
    "tokenizer_named",
]

TOKENIZER_NAMES = ("utf8", "cl100k", "hf", "non-additive")


@cache
def tokenizer_named(name: str) -> Any:
    """One instance per process of each tokenizer the engine tests run against."""
    if name == "utf8":
        return Utf8ByteTokenizer()
    if name == "cl100k":
        return TiktokenTokenizer("cl100k_base")
    if name == "hf":
        with tempfile.TemporaryDirectory() as folder:
            return HuggingFaceTokenizer(train_bert_wordpiece(Path(folder) / "tokenizer.json"))
    if name == "non-additive":
        return NonAdditiveTokenizer()
    raise KeyError(name)


Pieces = Sequence[tuple[str, Mapping[str, Any]]]


class NonAdditiveTokenizer:
    """A deliberately hostile tokenizer: counts are far from additive, boundaries coarse.

    ``count`` charges a third of a token per character plus the *square* of the number
    of blank-line joins, so a sum of parts badly underestimates any text joined by blank
    lines. ``boundaries`` allows cuts only at spaces: a long word cannot be cut at all.
    It offers no batch counting and no split points, so the engine must recount.
    """

    identity = "test-non-additive:v1"

    def count(self, text: str) -> int:
        return ceil(len(text) / 3) + text.count("\n\n") ** 2

    def boundaries(self, text: str) -> list[int]:
        inner = [index for index, character in enumerate(text) if character == " " and index]
        return [0, *inner, len(text)] if text else [0]


def normalize(text: str, content_format: str, document_id: str = "doc") -> NormalizedDocument:
    document = Document(document_id, "tests", text, {"content_format": content_format})
    return NormalizerRegistry().normalize(document)


def check_pieces(
    normalized: NormalizedDocument, pieces: Pieces, tokenizer: Any, config: PackingConfig
) -> ChunkValidation | None:
    """Assert the contract on ``pieces`` directly, then validate them independently."""
    source = normalized.content
    claimed: list[tuple[int, int]] = []
    for content, metadata in pieces:
        tokens = tokenizer.count(build_embedding_text(content, metadata))
        assert metadata["embedding_token_count"] == tokens
        assert tokens <= config.max_tokens or metadata["overflow"]
        assert metadata["overflow"] is (tokens > config.max_tokens)
        position = 0
        for d0, d1, s0, s1, kind in metadata["serialization_map"]:
            assert d0 == position and d1 >= d0
            position = d1
            if kind in ("source", "context", "overlap"):
                assert content[d0:d1] == source[s0:s1]
            elif kind == "separator":
                assert (s0, s1) == (-1, -1)
        assert position == len(content)
        claimed.extend(metadata["retained_intervals"])
        assert content.strip(), "a whitespace-only chunk would be dropped by the Chunker base"
    units = sorted((unit.span.start, unit.span.end) for unit in normalized.units)
    nothing_to_embed = all(
        normalized.node(unit.node_id).kind == "heading" or _blank(normalized, unit)
        for unit in normalized.units
    )
    if pieces or not nothing_to_embed:
        assert _merged(claimed) == _merged(units), "retained intervals must partition the units"
        assert sum(b - a for a, b in claimed) == sum(b - a for a, b in units), "no unit twice"
    return validate_structure_chunks(
        normalized,
        pieces,
        tokenizer,
        config.max_tokens,
        config.max_overlap_tokens,
        config.min_preferred_tokens,
    )


def _blank(normalized: NormalizedDocument, unit: CoverageUnit) -> bool:
    """Whether a unit shows nothing but whitespace (in its source or its owner's text)."""
    owner = normalized.node(unit.node_id)
    return not unit.span.slice(normalized.content).strip() or (
        bool(owner.serialization) and not owner.text.strip()
    )


def _merged(intervals: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    result: list[tuple[int, int]] = []
    for start, end in sorted(intervals):
        if result and start <= result[-1][1]:
            result[-1] = (result[-1][0], max(end, result[-1][1]))
        else:
            result.append((start, end))
    return result


def last_lines_of_validated_chunks(
    content: str, content_format: str, max_tokens: int, target_tokens: int, **options: Any
) -> tuple[list[str], str]:
    """Chunk ``content`` through ``StructureAwareChunker`` with a byte budget, validate
    the chunks independently, and return each chunk's last line and all text shown."""
    tokenizer = Utf8ByteTokenizer()
    chunker = StructureAwareChunker(
        tokenizer=tokenizer,
        max_tokens=max_tokens,
        target_tokens=target_tokens,
        cache=False,
        **options,
    )
    document = Document("d", "d", content, {"content_format": content_format})
    pieces = [piece for piece in chunker.split(document) if not isinstance(piece, str)]
    normalized = NormalizerRegistry().get(content_format).normalize(document)
    report = validate_structure_chunks(
        normalized,
        pieces,
        tokenizer,
        max_tokens,
        min_preferred_tokens=chunker.packing.min_preferred_tokens,
    )
    assert report.classification == "chunked"
    lasts = [text.rstrip().splitlines()[-1].strip() for text, _ in pieces]
    return lasts, "\n".join(text for text, _ in pieces)
