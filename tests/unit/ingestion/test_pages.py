"""Page provenance: the page maps of a paginated parent become each record's page fields."""

from __future__ import annotations

from typing import Any

from fastrag.ingestion.pages import LAYOUT_KEY, PAGES_KEY, chunk_pages, page_of
from fastrag.ingestion.records import build_records
from fastrag.ingestion.steps.chunking import RecursiveCharacterTextSplitter
from fastrag.models import Document
from fastrag.tokenization import Utf8ByteTokenizer
from tests.unit.ingestion._ingest_helpers import chunk

PAGE_TEXT = ("alpha beta gamma delta. " * 20, "epsilon zeta eta theta. " * 20, "iota kappa. " * 30)


def _paginated() -> Document:
    content = "\n\n".join(PAGE_TEXT)
    pages: list[list[int]] = []
    layout: list[list[Any]] = []
    start = 0
    for number, text in enumerate(PAGE_TEXT, start=1):
        end = len(content) if number == len(PAGE_TEXT) else start + len(text) + 2
        pages.append([start, end, number])
        half = start + len(text) // 2
        layout.append([start, half, number, 72.0, 100.0, 300.0, 112.5])
        layout.append([half, start + len(text), number, 310.0, 100.0, 540.0, 400.0])
        start = end
    metadata = {
        "source": "paged.pdf",
        "source_type": "pdf",
        "content_format": "text",
        "parser_version": "Test:1",
        PAGES_KEY: pages,
        LAYOUT_KEY: layout,
    }
    return Document("parent", "paged.pdf", content, metadata)


def test_page_of_maps_every_offset_to_its_page() -> None:
    pages = [[0, 10, 1], [10, 25, 2], [25, 30, 3]]
    assert [page_of(pages, offset) for offset in (0, 9, 10, 24, 25, 29, 30)] == [
        1,
        1,
        2,
        2,
        3,
        3,
        3,
    ]
    assert page_of([], 3) is None


def test_chunk_pages_spans_pages_and_unions_boxes_per_page() -> None:
    parent = _paginated()
    pages = parent.metadata[PAGES_KEY]
    start, end = pages[0][1] - 5, pages[1][0] + 5
    located = chunk_pages(parent.metadata, start, end)
    assert located is not None
    page, page_range, boxes = located
    assert (page, page_range) == (1, (1, 2))
    # the chunk touches the second box of page 1 and the first box of page 2 only
    assert boxes == ((1.0, 310.0, 100.0, 540.0, 400.0), (2.0, 72.0, 100.0, 300.0, 112.5))
    assert chunk_pages({}, 0, 5) is None


def test_records_of_a_paginated_parent_carry_their_page_and_never_the_maps() -> None:
    parent = _paginated()
    chunks = chunk(RecursiveCharacterTextSplitter(chunk_size=200, chunk_overlap=0), parent)
    assert all(PAGES_KEY not in c.metadata and LAYOUT_KEY not in c.metadata for c in chunks)
    built = build_records(parent, chunks, tokenizer=Utf8ByteTokenizer(), ingestion_version="v")
    seen = set()
    for record in built:
        start = record["char_start"]
        assert isinstance(start, int)
        expected = page_of(parent.metadata[PAGES_KEY], start)
        assert record["page"] == expected
        metadata = record["metadata"]
        first, last = metadata["page_range"]
        assert first == expected <= last
        assert [box[0] for box in metadata["boxes"]] == list(range(first, last + 1))
        assert PAGES_KEY not in metadata and LAYOUT_KEY not in metadata
        seen.add(record["page"])
    assert seen == {1, 2, 3}


def test_a_chunk_page_number_is_kept_when_the_parent_has_no_map() -> None:
    parent = Document("p", "deck.xlsx", "Sheet text here.", {"content_format": "text"})
    chunks = [
        Document("c", "deck.xlsx", "Sheet text here.", {"page_no": 4, "chunk_index": 0}),
    ]
    built = build_records(parent, chunks, tokenizer=Utf8ByteTokenizer(), ingestion_version="v")
    assert built[0]["page"] == 4
    assert "page_range" not in built[0]["metadata"]
