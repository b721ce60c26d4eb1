"""The ingestion report: what a run produced, per source type, and every failure with its reason.

Seed 002 asks for p50, p95 and maximum token counts per source type, chunks per document,
the empty-extraction rate and the duplicate-content rate. Every figure is computed from
integers: percentiles by the nearest-rank rule (``sorted[ceil(p/100 * n) - 1]``, an
observed value, no interpolation), rates as ``numerator / denominator`` rounded to six
places with both integers kept beside them — so the same run reports the same bytes in
any process. Only the token counts (ints) and a 32-byte digest per distinct chunk text are
kept, never the texts themselves.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from fastrag._optional import require
from fastrag.exceptions import NeedsOcrError, ValidationError
from fastrag.ingestion.manifest import CHUNKED, EMPTY, FAILED, QUARANTINED, SKIPPED, ManifestEntry

__all__ = [
    "FailureRow",
    "IngestionReport",
    "ReportBuilder",
    "SourceTypeStats",
    "nearest_rank",
]

_UNKNOWN: Final = "unknown"
_NEEDS_OCR: Final = NeedsOcrError.__name__
_RATE_PLACES: Final = 6


def nearest_rank(sorted_values: list[int], percent: int) -> int:
    """The nearest-rank percentile of ascending ``sorted_values`` (0 for an empty list)."""
    if not 0 < percent <= 100:
        raise ValidationError(f"percent must be in (0, 100] (got {percent!r})")
    if not sorted_values:
        return 0
    rank = max(1, -(-percent * len(sorted_values) // 100))
    return sorted_values[rank - 1]


def _rate(numerator: int, denominator: int) -> float:
    return round(numerator / denominator, _RATE_PLACES) if denominator else 0.0


@dataclass(frozen=True, slots=True)
class SourceTypeStats:
    """The figures of one source type.

    ``documents`` counts discovered files of this type, whatever their state;
    ``empty_extraction_rate`` is empty / (chunked + empty) — of the files that parsed,
    how many yielded no text; ``duplicate_chunks`` counts chunks whose text equals an
    earlier chunk's text of the same type.
    """

    source_type: str
    documents: int
    chunked_documents: int
    empty_documents: int
    skipped_documents: int
    failed_documents: int
    quarantined_documents: int
    chunks: int
    chunks_per_document: float
    chunks_per_document_max: int
    token_p50: int
    token_p95: int
    token_max: int
    empty_extraction_rate: float
    duplicate_chunks: int
    duplicate_chunk_rate: float
    pages: int
    """Pages (slides) of this type's paginated files that parsed (0 for unpaginated types)."""
    pages_with_text: int
    text_page_rate: float
    """pages_with_text / pages: the share of pages with extractable text."""
    needs_ocr_documents: int
    """Files quarantined because they have no extractable text at all (scans)."""


@dataclass(frozen=True, slots=True)
class FailureRow:
    """A file that was not chunked: its path, state and the reason, verbatim."""

    path: str
    source_type: str
    state: str
    reason: str


@dataclass(frozen=True, slots=True)
class IngestionReport:
    """Per-type figures, the state totals and every file not chunked, with its reason."""

    by_type: tuple[SourceTypeStats, ...]
    states: Mapping[str, int]
    failures: tuple[FailureRow, ...]
    skipped: tuple[FailureRow, ...]
    totals: SourceTypeStats

    def to_dict(self) -> dict[str, Any]:
        """JSON-native form (the same data ``to_json`` writes)."""
        return {
            "by_type": {stats.source_type: _stats_dict(stats) for stats in self.by_type},
            "failures": [_row_dict(row) for row in self.failures],
            "skipped": [_row_dict(row) for row in self.skipped],
            "states": dict(self.states),
            "totals": _stats_dict(self.totals),
        }

    def to_json(self) -> str:
        """Sorted keys, two-space indent, trailing newline: byte-identical for equal runs."""
        return json.dumps(self.to_dict(), sort_keys=True, indent=2, ensure_ascii=False) + "\n"

    def render_table(self, console: Any) -> None:
        """Print the per-type table and the failures on a ``rich`` console."""
        table_module = require("rich.table", extra="cli", feature="the ingestion report table")
        table = table_module.Table(title="fastrag ingest — per source type")
        headers = (
            "type", "docs", "chunked", "empty", "failed", "chunks", "chunks/doc",
            "tok p50", "tok p95", "tok max", "empty rate", "dup rate", "pages",
            "text pages", "needs OCR",
        )  # fmt: skip
        for header in headers:
            table.add_column(header, justify="left" if header == "type" else "right")
        for stats in (*self.by_type, self.totals):
            table.add_row(
                stats.source_type,
                str(stats.documents),
                str(stats.chunked_documents),
                str(stats.empty_documents),
                str(stats.failed_documents + stats.quarantined_documents),
                str(stats.chunks),
                f"{stats.chunks_per_document:.2f}",
                str(stats.token_p50),
                str(stats.token_p95),
                str(stats.token_max),
                f"{stats.empty_extraction_rate:.1%}",
                f"{stats.duplicate_chunk_rate:.1%}",
                str(stats.pages),
                f"{stats.text_page_rate:.1%}" if stats.pages else "-",
                str(stats.needs_ocr_documents),
            )
        console.print(table)
        for row in self.failures:
            console.print(
                f"{row.state}: {row.path} ({row.source_type}): {row.reason}", markup=False
            )


def _stats_dict(stats: SourceTypeStats) -> dict[str, Any]:
    return {name: getattr(stats, name) for name in SourceTypeStats.__slots__}


def _row_dict(row: FailureRow) -> dict[str, str]:
    return {
        "path": row.path,
        "reason": row.reason,
        "source_type": row.source_type,
        "state": row.state,
    }


@dataclass(slots=True)
class _Accumulator:
    """Mutable per-type tallies while a run streams; frozen into ``SourceTypeStats``."""

    states: dict[str, int] = field(default_factory=dict)
    tokens: list[int] = field(default_factory=list)
    chunks_per_document: dict[str, int] = field(default_factory=dict)
    texts: set[bytes] = field(default_factory=set)
    duplicates: int = 0
    pages: int = 0
    pages_with_text: int = 0
    needs_ocr: int = 0

    def stats(self, source_type: str) -> SourceTypeStats:
        tokens = sorted(self.tokens)
        chunked = self.states.get(CHUNKED, 0)
        empty = self.states.get(EMPTY, 0)
        per_document = self.chunks_per_document.values()
        # Files that produced records but have no manifest entry still count as chunked.
        chunked = max(chunked, len(self.chunks_per_document))
        return SourceTypeStats(
            source_type=source_type,
            documents=max(sum(self.states.values()), chunked),
            chunked_documents=chunked,
            empty_documents=empty,
            skipped_documents=self.states.get(SKIPPED, 0),
            failed_documents=self.states.get(FAILED, 0),
            quarantined_documents=self.states.get(QUARANTINED, 0),
            chunks=len(tokens),
            chunks_per_document=_rate(len(tokens), chunked),
            chunks_per_document_max=max(per_document, default=0),
            token_p50=nearest_rank(tokens, 50),
            token_p95=nearest_rank(tokens, 95),
            token_max=tokens[-1] if tokens else 0,
            empty_extraction_rate=_rate(empty, chunked + empty),
            duplicate_chunks=self.duplicates,
            duplicate_chunk_rate=_rate(self.duplicates, len(tokens)),
            pages=self.pages,
            pages_with_text=self.pages_with_text,
            text_page_rate=_rate(self.pages_with_text, self.pages),
            needs_ocr_documents=self.needs_ocr,
        )


class ReportBuilder:
    """Feed records and manifest entries as a run goes; ``build`` freezes the figures.

    Order does not matter for any figure except which of two identical chunks counts as
    the duplicate — and the count is the same either way.
    """

    def __init__(self) -> None:
        self._types: dict[str, _Accumulator] = {}
        self._total = _Accumulator()
        self._rows: list[FailureRow] = []

    def add_records(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Count one or more JSONL records (dicts with ``source_type``, ``text``, …)."""
        for record in records:
            source_type = str(record.get("source_type") or _UNKNOWN)
            source = str(record.get("source", ""))
            token_estimate = record.get("token_estimate")
            text = record.get("text")
            if type(token_estimate) is not int or not isinstance(text, str):
                raise ValidationError(
                    f"record {record.get('chunk_id')!r} of {source!r} needs an int "
                    "token_estimate and a str text to be reported; build it with build_record"
                )
            digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
            for accumulator in (self._accumulator(source_type), self._total):
                accumulator.tokens.append(token_estimate)
                key = f"{source_type}\x1f{source}"
                accumulator.chunks_per_document[key] = (
                    accumulator.chunks_per_document.get(key, 0) + 1
                )
                if digest in accumulator.texts:
                    accumulator.duplicates += 1
                else:
                    accumulator.texts.add(digest)

    def add_entries(self, entries: Iterable[ManifestEntry]) -> None:
        """Count the final state of discovered files (one entry per file)."""
        for entry in entries:
            source_type = entry.source_type or _UNKNOWN
            needs_ocr = entry.error == _NEEDS_OCR
            for accumulator in (self._accumulator(source_type), self._total):
                accumulator.states[entry.state] = accumulator.states.get(entry.state, 0) + 1
                accumulator.pages += entry.pages or 0
                accumulator.pages_with_text += entry.pages_with_text or 0
                accumulator.needs_ocr += needs_ocr
            if entry.state not in (CHUNKED, EMPTY):
                self._rows.append(FailureRow(entry.path, source_type, entry.state, entry.reason))

    def build(self) -> IngestionReport:
        """The report; may be called repeatedly (it does not consume the tallies)."""
        rows = sorted(self._rows, key=lambda row: (row.path, row.state))
        totals = self._total.stats("all")
        states = {
            CHUNKED: totals.chunked_documents,
            EMPTY: totals.empty_documents,
            SKIPPED: totals.skipped_documents,
            FAILED: totals.failed_documents,
            QUARANTINED: totals.quarantined_documents,
        }
        return IngestionReport(
            by_type=tuple(self._types[name].stats(name) for name in sorted(self._types)),
            states=states,
            failures=tuple(row for row in rows if row.state in (FAILED, QUARANTINED)),
            skipped=tuple(row for row in rows if row.state == SKIPPED),
            totals=totals,
        )

    def _accumulator(self, source_type: str) -> _Accumulator:
        accumulator = self._types.get(source_type)
        if accumulator is None:
            accumulator = self._types[source_type] = _Accumulator()
        return accumulator
