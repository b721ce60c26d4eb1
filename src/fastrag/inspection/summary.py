"""The figures of one inspected document: chunk count, token distribution, budget, flags.

Computed once from the records and shared by the HTML page and the terminal table, so
both always say the same thing. Percentiles use the nearest-rank method (the smallest
count with at least p % of the chunks at or below it): every value shown is a real
chunk's count, and no interpolation hides the largest chunk.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fastrag.inspection._segments import chunk_spans
from fastrag.inspection.load import Inspection

__all__ = ["InspectionSummary", "nearest_rank", "summarize", "token_counts"]


def nearest_rank(values: Sequence[int], percent: float) -> int:
    """The nearest-rank ``percent`` percentile of ``values`` (0 for none)."""
    if not values:
        return 0
    ordered = sorted(values)
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[rank - 1]


def token_counts(records: Sequence[Mapping[str, Any]]) -> tuple[int, ...]:
    """Each record's ``token_estimate`` (the exact count of its embedding text)."""
    return tuple(int(record["token_estimate"]) for record in records)


def _flag(record: Mapping[str, Any], name: str) -> bool:
    metadata = record.get("metadata")
    return isinstance(metadata, Mapping) and metadata.get(name) is True


def _covered(length: int, records: Sequence[Mapping[str, Any]]) -> int:
    """Characters of the text that some chunk's primary content holds (each counted once)."""
    intervals = sorted(
        (max(0, low), min(length, high))
        for record in records
        for low, high in chunk_spans(record).primary
    )
    covered, reach = 0, 0
    for low, high in intervals:
        low = max(low, reach)
        if high > low:
            covered += high - low
            reach = high
    return covered


@dataclass(frozen=True, slots=True)
class InspectionSummary:
    """What the summary table shows; ``rows()`` is its text, in display order."""

    source: str
    source_type: str
    parser_version: str | None
    characters: int
    covered_characters: int
    chunks: int
    tokens_total: int
    tokens_p50: int
    tokens_p95: int
    tokens_max: int
    chunker: str
    tokenizer: str
    max_tokens: int | None
    target_tokens: int | None
    overlap_tokens: int
    offset_modes: tuple[tuple[str, int], ...]
    overflow: int
    atomic_structure_loss: int
    unlocated: int
    """Chunks whose text was not found in the parsed text (offset mode ``none``)."""

    def rows(self) -> tuple[tuple[str, str], ...]:
        """``(label, value)`` pairs; values may hold document-derived text (the name)."""
        coverage = (
            f"{self.covered_characters} of {self.characters} characters "
            f"({100 * self.covered_characters / self.characters:.1f} %)"
            if self.characters
            else "0 characters"
        )
        budget = "none (this chunker promises no token budget)"
        if self.max_tokens is not None:
            budget = f"max {self.max_tokens}"
            if self.target_tokens is not None:
                budget += f", target {self.target_tokens}"
            budget += f", overlap {self.overlap_tokens}"
        modes = ", ".join(f"{mode} x{count}" for mode, count in self.offset_modes) or "-"
        return (
            ("Source", f"{self.source} ({self.source_type})"),
            ("Parser", self.parser_version or "-"),
            ("Chunks", str(self.chunks)),
            (
                "Tokens p50 / p95 / max",
                f"{self.tokens_p50} / {self.tokens_p95} / {self.tokens_max}",
            ),
            ("Tokens total", str(self.tokens_total)),
            ("Budget", budget),
            ("Chunker / tokenizer", f"{self.chunker} / {self.tokenizer}"),
            ("Offsets mode", modes),
            ("Text covered by chunks", coverage),
            ("Overflow", str(self.overflow)),
            ("Atomic structure loss", str(self.atomic_structure_loss)),
            ("Not located in the text", str(self.unlocated)),
        )


def summarize(inspection: Inspection) -> InspectionSummary:
    """The summary of ``inspection``."""
    records = inspection.records
    counts = token_counts(records)
    modes = Counter(
        str(record["metadata"].get("offset_mode", "none"))
        if isinstance(record.get("metadata"), Mapping)
        else "none"
        for record in records
    )
    settings = inspection.settings
    return InspectionSummary(
        source=inspection.source,
        source_type=inspection.source_type,
        parser_version=inspection.parser_version,
        characters=len(inspection.content),
        covered_characters=_covered(len(inspection.content), records),
        chunks=len(records),
        tokens_total=sum(counts),
        tokens_p50=nearest_rank(counts, 50),
        tokens_p95=nearest_rank(counts, 95),
        tokens_max=max(counts, default=0),
        chunker=settings.chunker,
        tokenizer=settings.tokenizer,
        max_tokens=settings.max_tokens,
        target_tokens=settings.target_tokens,
        overlap_tokens=settings.overlap_tokens,
        offset_modes=tuple(sorted(modes.items())),
        overflow=sum(_flag(record, "overflow") for record in records),
        atomic_structure_loss=sum(_flag(record, "atomic_structure_loss") for record in records),
        unlocated=sum(record.get("char_start") is None for record in records),
    )
