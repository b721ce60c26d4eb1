"""The report's figures on a hand-made run, checked against hand-computed values."""

from __future__ import annotations

import json

import pytest

from fastrag.exceptions import ValidationError
from fastrag.ingestion.manifest import CHUNKED, EMPTY, FAILED, QUARANTINED, SKIPPED, ManifestEntry
from fastrag.ingestion.report import ReportBuilder, nearest_rank


def _record(source: str, source_type: str, text: str, tokens: int) -> dict[str, object]:
    return {"source": source, "source_type": source_type, "text": text, "token_estimate": tokens}


def _builder() -> ReportBuilder:
    builder = ReportBuilder()
    # markdown: a.md 3 chunks (one repeats "same"), b.md 1 chunk ("same" again): 4 chunks.
    builder.add_records([
        _record("a.md", "markdown", "same", 10),
        _record("a.md", "markdown", "x", 40),
        _record("a.md", "markdown", "same", 20),
    ])  # fmt: skip
    builder.add_records([_record("b.md", "markdown", "same", 30)])
    builder.add_records([_record("t.txt", "text", f"t{i}", i) for i in range(1, 21)])
    builder.add_entries([
        ManifestEntry("a.md", "h", 1, "markdown", CHUNKED, chunk_count=3),
        ManifestEntry("b.md", "h", 1, "markdown", CHUNKED, chunk_count=1),
        ManifestEntry("c.md", "h", 0, "markdown", EMPTY),
        ManifestEntry("d.md", "h", 1, "markdown", FAILED, reason="parse error at byte 3"),
        ManifestEntry("t.txt", "h", 1, "text", CHUNKED, chunk_count=20),
        ManifestEntry("z.bin", "h", 1, None, SKIPPED, reason="binary"),
        ManifestEntry("q.txt", "h", 1, "text", QUARANTINED, reason="missing tenant"),
    ])  # fmt: skip
    return builder


def test_nearest_rank() -> None:
    values = list(range(1, 21))
    assert nearest_rank(values, 50) == 10
    assert nearest_rank(values, 95) == 19
    assert nearest_rank(values, 100) == 20
    assert nearest_rank([7], 5) == 7
    assert nearest_rank([], 50) == 0
    with pytest.raises(ValidationError):
        nearest_rank(values, 0)


def test_per_type_figures() -> None:
    report = _builder().build()
    by_type = {stats.source_type: stats for stats in report.by_type}
    assert sorted(by_type) == ["markdown", "text", "unknown"]
    markdown = by_type["markdown"]
    assert (markdown.documents, markdown.chunked_documents, markdown.empty_documents) == (4, 2, 1)
    assert markdown.failed_documents == 1
    assert markdown.chunks == 4
    assert markdown.chunks_per_document == 2.0 and markdown.chunks_per_document_max == 3
    assert (markdown.token_p50, markdown.token_p95, markdown.token_max) == (20, 40, 40)
    assert markdown.empty_extraction_rate == round(1 / 3, 6)
    assert (markdown.duplicate_chunks, markdown.duplicate_chunk_rate) == (2, 0.5)
    text = by_type["text"]
    assert (text.token_p50, text.token_p95, text.token_max) == (10, 19, 20)
    assert (text.duplicate_chunks, text.quarantined_documents, text.documents) == (0, 1, 2)
    assert report.totals.chunks == 24 and report.totals.documents == 7
    assert report.states == {CHUNKED: 3, EMPTY: 1, SKIPPED: 1, FAILED: 1, QUARANTINED: 1}


def test_every_failure_is_listed_with_its_reason() -> None:
    report = _builder().build()
    assert [(row.path, row.state, row.reason) for row in report.failures] == [
        ("d.md", FAILED, "parse error at byte 3"),
        ("q.txt", QUARANTINED, "missing tenant"),
    ]
    assert [(row.path, row.source_type) for row in report.skipped] == [("z.bin", "unknown")]


def test_json_is_sorted_and_deterministic() -> None:
    first = _builder().build().to_json()
    assert first == _builder().build().to_json()
    data = json.loads(first)
    assert list(data) == sorted(data)
    assert data["by_type"]["markdown"]["token_p95"] == 40


def test_table_renders_with_rich() -> None:
    from rich.console import Console

    console = Console(record=True, width=200)
    _builder().build().render_table(console)
    text = console.export_text()
    assert "markdown" in text and "parse error at byte 3" in text


def test_a_record_without_counts_is_refused() -> None:
    with pytest.raises(ValidationError, match="token_estimate"):
        ReportBuilder().add_records([{"source": "a", "text": "x"}])


def test_pages_text_rate_and_ocr_needs_per_type() -> None:
    builder = ReportBuilder()
    builder.add_records([_record("a.pdf", "pdf", "page text", 5)])
    builder.add_entries([
        ManifestEntry("a.pdf", "h", 9, "pdf", CHUNKED, chunk_count=1, pages=10,
                      pages_with_text=8),
        ManifestEntry("b.pdf", "h", 9, "pdf", EMPTY, pages=2, pages_with_text=0),
        ManifestEntry("scan.pdf", "h", 9, "pdf", QUARANTINED,
                      reason="scan.pdf: no extractable text", error="NeedsOcrError"),
        # counted by the error's kind, never by the words of the reason
        ManifestEntry("bad.pdf", "h", 9, "pdf", FAILED, reason="truncated; needs OCR?",
                      error="ParsingError"),
        ManifestEntry("n.md", "h", 1, "markdown", QUARANTINED, reason="missing tenant"),
    ])  # fmt: skip
    report = builder.build()
    pdf = next(stats for stats in report.by_type if stats.source_type == "pdf")
    assert (pdf.pages, pdf.pages_with_text, pdf.text_page_rate) == (12, 8, round(8 / 12, 6))
    assert pdf.needs_ocr_documents == 1
    markdown = next(stats for stats in report.by_type if stats.source_type == "markdown")
    assert (markdown.pages, markdown.text_page_rate, markdown.needs_ocr_documents) == (0, 0.0, 0)
    assert report.totals.needs_ocr_documents == 1


def test_page_counts_must_be_consistent() -> None:
    with pytest.raises(ValidationError, match="pages_with_text"):
        ManifestEntry("a.pdf", "h", 9, "pdf", EMPTY, pages=2, pages_with_text=3)
    with pytest.raises(ValidationError, match="pages_with_text"):
        ManifestEntry("a.pdf", "h", 9, "pdf", EMPTY, pages=2)
