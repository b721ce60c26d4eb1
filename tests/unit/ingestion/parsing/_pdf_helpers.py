"""Shared helpers of the PdfParser tests: parse corpus PDFs once, check the page maps."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from functools import cache
from typing import Any

import pypdfium2

from fastrag.ingestion.pages import page_of
from fastrag.ingestion.steps.parsing._pdf_analyze import analyze
from fastrag.ingestion.steps.parsing._pdf_extract import extract
from fastrag.ingestion.steps.parsing._pdf_headings import _keys
from fastrag.ingestion.steps.parsing._pdf_layout import BlockKind
from fastrag.ingestion.steps.parsing.pdf import PdfParser
from fastrag.models import Document
from tests._paths import SHARED

PDF = SHARED / "corpus" / "pdf"
TEXT_PDFS = (
    "GeoTopo-komprimiert.pdf",
    "acmart-sample-sigconf.pdf",
    "amt_handbook_sample.pdf",
    "bashref.pdf",
    "federal-register-2020-17221.pdf",
    "multicolumn.pdf",
    "nics-background-checks-2015-11.pdf",
    "redp5110_sampled.pdf",
)
_SQUASH = re.compile(r"[\s\ufffe\xad\x00-\x1f]+")
_LIGATURES = str.maketrans(
    {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"}
)


def raw_document(name: str) -> Document:
    """The raw document a parser receives for ``name`` (no path: ``parse`` is called)."""
    return Document("raw", name, "", {"source_type": "pdf"})


def parse_bytes(data: bytes, name: str, parser: PdfParser | None = None) -> Document:
    """``data`` parsed and built into the parsed document, as the pipeline does."""
    parser = parser or PdfParser()
    raw = raw_document(name)
    return parser.build_document(raw, parser.parse(data, raw))


@cache
def parsed(name: str) -> Document:
    """A corpus PDF parsed with the default options (once per test session)."""
    return parse_bytes((PDF / name).read_bytes(), name)


@cache
def page_texts(name: str) -> tuple[str, ...]:
    """pypdfium2's own text of every page, whitespace and soft hyphens removed."""
    document = pypdfium2.PdfDocument(PDF / name)
    try:
        texts = []
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            texts.append(squash(textpage.get_text_range()))
            textpage.close()
            page.close()
        return tuple(texts)
    finally:
        document.close()


@cache
def page_sizes(name: str) -> tuple[tuple[float, float], ...]:
    """(width, height) of every page, as pypdfium2 reports them."""
    document = pypdfium2.PdfDocument(PDF / name)
    try:
        return tuple(tuple(document[i].get_size()) for i in range(len(document)))  # type: ignore[misc]
    finally:
        document.close()


def squash(text: str) -> str:
    """Text without whitespace, control characters and pdfium's hyphen marks."""
    return _SQUASH.sub("", text.translate(_LIGATURES))


def check_page_maps(document: Document, sizes: Sequence[tuple[float, float]]) -> None:
    """The invariants of ``fastrag.ingestion.pages`` on a parsed PDF."""
    content = document.content
    pages: list[list[int]] = document.metadata["pages"]
    layout: list[list[Any]] = document.metadata["layout"]
    assert isinstance(pages, list) and all(isinstance(entry, list) for entry in pages)
    assert pages[0][0] == 0 and pages[-1][1] == len(content)
    for (start, end, page), following in zip(pages, [*pages[1:], None], strict=True):
        assert start < end and isinstance(page, int) and 1 <= page <= len(sizes)
        if following is not None:
            assert following[0] == end and following[2] > page
    previous_end = 0
    for start, end, page, x0, y0, x1, y1 in layout:
        assert previous_end <= start < end <= len(content)
        previous_end = end
        assert page_of(pages, start) == page == page_of(pages, end - 1)
        width, height = sizes[page - 1]
        assert 0 <= x0 <= x1 <= width + 0.05 and 0 <= y0 <= y1 <= height + 0.05
        assert all(isinstance(value, float) for value in (x0, y0, x1, y1))
        assert round(x0, 1) == x0 and round(y1, 1) == y1


def mixed_pdf(*parts: tuple[str, Sequence[int]]) -> bytes:
    """A new PDF of real corpus pages: ``(file, [page indices])`` in order."""
    target = pypdfium2.PdfDocument.new()
    sources = []
    try:
        for name, indices in parts:
            source = pypdfium2.PdfDocument(PDF / name)
            sources.append(source)
            target.import_pages(source, list(indices))
        buffer = io.BytesIO()
        target.save(buffer)
        return buffer.getvalue()
    finally:
        target.close()
        for source in sources:
            source.close()


def heading_scores(name: str) -> tuple[float, float, int, int]:
    """Recall and precision of layout-only headings against the outline entries.

    The outline is hidden from the detector (``use_outline=False``). An entry is found
    when a detected heading has its normalized title (section numbers aside) on its
    page, or on the next (a destination may sit at the foot of the page before).
    Returns (recall, precision, outline entries, detected headings).
    """
    extraction = extract(
        (PDF / name).read_bytes(),
        name=name,
        password=None,
        max_pages=5000,
        max_characters=10**9,
    )
    layout = analyze(extraction, use_outline=False)
    detected = [
        (block.page, block.text)
        for page in layout.pages
        for block in page.blocks
        if block.kind is BlockKind.HEADING
    ]
    entries = [(entry.page, entry.title) for entry in extraction.outline]

    def same(heading: tuple[int, str], entry: tuple[int, str]) -> bool:
        return heading[0] in (entry[0], entry[0] + 1) and bool(_keys(heading[1]) & _keys(entry[1]))

    found = sum(any(same(h, e) for h in detected) for e in entries)
    right = sum(any(same(h, e) for e in entries) for h in detected)
    return found / len(entries), right / len(detected), len(entries), len(detected)
