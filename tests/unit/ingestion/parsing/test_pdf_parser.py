"""``PdfParser`` on the real PDFs of the shared corpus: pages, structure, chunks."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from fastrag.ingestion.pages import chunk_pages, page_of
from fastrag.ingestion.steps.chunking import StructureAwareChunker
from fastrag.ingestion.steps.parsing.pdf import PdfParser
from fastrag.models import ContentFormat
from fastrag.normalization import NormalizerRegistry
from tests.unit.ingestion.parsing._pdf_helpers import (
    PDF,
    TEXT_PDFS,
    check_page_maps,
    mixed_pdf,
    page_sizes,
    page_texts,
    parse_bytes,
    parsed,
    squash,
)

pytestmark = pytest.mark.skipif(not PDF.is_dir(), reason="shared corpus not present")

_UNESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\ufffe\xad]")
_MARKUP = re.compile(r"^(?:#{1,6} |- |\d{1,9}[.)] )")
_FENCED = re.compile(r"(?ms)^```.*?^```$")


def plain(markdown: str) -> str:
    """Rendered text with the renderer's backslash escapes removed."""
    return _UNESCAPE.sub(r"\1", markdown)


@pytest.mark.parametrize("name", TEXT_PDFS)
def test_page_maps_cover_the_content_and_every_row_is_on_its_page(name: str) -> None:
    document = parsed(name)
    check_page_maps(document, page_sizes(name))
    texts = page_texts(name)
    layout = document.metadata["layout"]
    checked = 0
    for start, end, page, *_box in layout[:: max(1, len(layout) // 60)]:
        row = document.content[start:end]
        if "…" in row or row.startswith("|"):  # shortened dot leaders, table rows
            continue
        text = texts[page - 1]
        # A row of several cells (a table row, authors side by side) may join them in
        # another order than pdfium streams them: then each word must be on the page.
        # (GeoTopo prints LaTeX's "Double\_torus" literally: the raw row matches then.)
        assert (
            squash(row) in text
            or squash(plain(row)) in text
            or all(squash(word) in text for word in plain(row).split())
        ), (name, page, row)
        checked += 1
    assert checked >= 10
    assert not _CONTROL.search(document.content)


@pytest.mark.parametrize("name", TEXT_PDFS)
def test_parsed_metadata(name: str) -> None:
    document = parsed(name)
    metadata = document.metadata
    assert metadata["content_format"] == ContentFormat.MARKDOWN
    assert metadata["parser_version"] == "PdfParser:18"
    assert metadata["page_count"] == len(page_sizes(name))
    assert metadata["heading_source"] in {"outline", "layout", "none"}
    assert all(isinstance(page, int) for page in metadata["pages_without_text"])
    assert isinstance(metadata["removed_furniture"], int)


def test_chunk_pages_are_the_pages_their_text_is_printed_on() -> None:
    document = parsed("bashref.pdf")
    texts = page_texts("bashref.pdf")
    pieces = list(StructureAwareChunker().split(document))
    assert len(pieces) > 200
    for _text, metadata in pieces[::7]:
        start, end = metadata["char_start"], metadata["char_end"]
        located = chunk_pages(document.metadata, start, end)
        assert located is not None
        page, (first, last), boxes = located
        assert page == first == page_of(document.metadata["pages"], start) and first <= last
        assert {int(box[0]) for box in boxes} <= set(range(first, last + 1))
        head = _MARKUP.sub("", document.content[start:end].split("\n", 1)[0])[:60]
        if head and "…" not in head and not head.startswith(("```", "|")):
            assert squash(plain(head)) in texts[page - 1], (page, head)


def test_bashref_structure_from_the_outline() -> None:
    document = parsed("bashref.pdf")
    metadata, content = document.metadata, document.content
    assert metadata["page_count"] == 196
    assert metadata["heading_source"] == "outline"
    headings = [line for line in content.splitlines() if re.match(r"#{1,6} ", line)]
    assert headings[:4] == [
        "# 1 Introduction",
        "## 1.1 What is Bash?",
        "## 1.2 What is a shell?",
        "# 2 Definitions",
    ]
    assert "#### 3.1.2.1 Escape Character" in headings
    assert "## 3.5 Shell Expansions" in headings
    start = content.index("### 3.5.2 Tilde Expansion")
    assert page_of(metadata["pages"], start) == 31  # printed page 25 + 6 front pages
    # Hyphenation repaired: "Redirec-/tions" across a line end is one word.
    assert "See Section 3.6 [Redirections], page 38" in content


def test_bashref_running_headers_and_page_numbers_are_gone() -> None:
    document = parsed("bashref.pdf")
    content = document.content
    assert "Chapter 3: Basic Shell Features" not in content
    assert not re.search(r"(?m)^Chapter \d+: ", content)
    # No page number left on a line of its own (code samples print numbers
    # legitimately); the index, whose letter headings include "0", is left out whole.
    assert "# Appendix D Indexes" not in content
    body = _FENCED.sub("", content)
    assert not re.search(r"(?m)^(?:\d+|[ivxlc]+)$", body)
    removed = document.metadata["removed_furniture"]
    assert 190 <= removed <= 196
    assert (
        f"furniture: {removed} running header/footer and page-number lines removed"
        in (document.metadata["parse_diagnostics"])
    )


def test_a_chapter_page_number_is_furniture() -> None:
    # The handbook numbers pages by chapter: "7-45" closed the page's last chunk.
    document = parsed("amt_handbook_sample.pdf")
    assert "7-45" not in document.content
    assert "Figure 7-27. Stainless steel self-locking nut." in document.content
    assert document.metadata["removed_furniture"] == 1


def test_a_first_page_masthead_is_furniture() -> None:
    # Page 1 prints the running header as three lines at the top of its third column,
    # which were read into the middle of the sentence continuing there.
    content = parsed("federal-register-2020-17221.pdf").content
    assert "a specific portion of the proposal, explain the reason" in content
    assert not re.search(
        r"(?m)^(?:Federal Register|Vol\. 85, No\. 152|Thursday, August 6, 2020)$", content
    )


def test_lists_code_and_tables_are_markdown_structure() -> None:
    bash = parsed("bashref.pdf").content
    assert "\n\n1. Reads its input from a file (see Section 3.8 [Shell Scripts], page 46)" in bash
    assert "\n\n```\nbash$ echo a{d,c,b}e\nade ace abe\n```\n\n" in bash
    register = parsed("federal-register-2020-17221.pdf").content
    assert "\n\n- Fax: 202–493–2251.\n\n" in register
    nics = parsed("nics-background-checks-2015-11.pdf").content
    assert "| Alabama | 18,870 | 23,022 | 22,650 | 859 | 1,178 |" in nics
    tree = NormalizerRegistry().normalize(parsed("nics-background-checks-2015-11.pdf"))
    assert sum(node.kind == "table_row" for node in tree.nodes) >= 50


def test_two_columns_are_read_one_after_the_other() -> None:
    # multicolumn.pdf page 1: the left column ends "... Donec nonummy" and the right
    # column goes on "pellentesque ante. ..." (checked by eye on the rendered page).
    content = parsed("multicolumn.pdf").content
    assert "Vivamus viverra fermentum felis. Donec nonummy pellentesque ante." in content
    # acmart page 1: the left column ends with the ACM rights block, the right one starts
    # with KEYWORDS; the two never interleave.
    acm = parsed("acmart-sample-sigconf.pdf").content
    keywords = acm.index("https://doi.org/XXXXXXX.XXXXXXX\n\n# KEYWORDS")
    assert keywords < acm.index("# 1 INTRODUCTION")


def test_three_columns_are_read_one_after_the_other() -> None:
    content = parsed("federal-register-2020-17221.pdf").content
    # Page 1: column 1 ends "... by any of the following" / "methods:", column 2 opens
    # with the bulleted ADDRESSES list, column 3 with "Except for Confidential ...".
    first = content.index("by any of the following methods:")
    second = content.index("- Federal eRulemaking Portal: Go to https://www.regulations.gov.")
    third = content.index("Except for Confidential Business Information (CBI)")
    assert first < second < third
    # Page 2: footnotes are streamed first in the file but printed below column 1's body.
    assert content.index("resulting in 189 fatalities") < content.index(
        "1Preliminary KNKT.18.10.35.04 Aircraft Accident Investigation Report"
    )


def test_scaled_text_matrix_still_gives_real_font_sizes() -> None:
    # redp5110 sets Tf to 1 pt and scales the matrix: headings only appear with the
    # effective size.
    document = parsed("redp5110_sampled.pdf")
    assert document.metadata["heading_source"] == "layout"
    headings = [line for line in document.content.splitlines() if line.startswith("#")]
    assert "# Chapter 1. Securing and protecting IBM DB2 data" in headings
    assert "## 1.1 Security fundamentals" in headings
    assert "# 3.2.2 Built-in global variables" in headings  # its chapter is not sampled
    assert document.metadata["pages_without_text"] == [17]


def test_image_only_pages_inside_a_text_document_are_reported() -> None:
    data = mixed_pdf(
        ("multicolumn.pdf", [0, 1]),
        ("scanned_ocr_test.pdf", [0]),
        ("scanned_c02-22.pdf", [0]),
        ("multicolumn.pdf", [2]),
    )
    document = parse_bytes(data, "mixed.pdf")
    assert document.metadata["pages_without_text"] == [3, 4]
    assert (
        "ocr: pages 3–4 image-only, no extractable text — needs OCR"
        in (document.metadata["parse_diagnostics"])
    )
    assert [entry[2] for entry in document.metadata["pages"]] == [1, 2, 5]


def test_same_bytes_same_output_and_threads_agree() -> None:
    name = "acmart-sample-sigconf.pdf"
    data = (PDF / name).read_bytes()
    first = parse_bytes(data, name)
    with ThreadPoolExecutor(max_workers=4) as pool:
        documents = list(pool.map(lambda _: parse_bytes(data, name), range(8)))
    for document in documents:
        assert document.content == first.content and document.id == first.id
        assert dict(document.metadata) == dict(first.metadata)


@pytest.mark.parametrize("name", TEXT_PDFS)
def test_structure_aware_chunker_packs_the_rendering(name: str) -> None:
    document = parsed(name)
    pieces = list(StructureAwareChunker().split(document))
    assert pieces
    ends = [metadata["char_end"] for _text, metadata in pieces]
    assert max(ends) <= len(document.content)


def test_chunks_carry_the_heading_path() -> None:
    pieces = StructureAwareChunker(target_tokens=100, max_tokens=200).split(parsed("bashref.pdf"))
    paths = {tuple(metadata["heading_path"]) for _text, metadata in pieces}
    assert ("3 Basic Shell Features", "3.5 Shell Expansions", "3.5.2 Tilde Expansion") in paths


def test_outline_can_be_ignored() -> None:
    data = (PDF / "acmart-sample-sigconf.pdf").read_bytes()
    document = parse_bytes(data, "acmart.pdf", PdfParser(use_outline=False))
    assert document.metadata["heading_source"] == "layout"
    assert "# 1 INTRODUCTION" in document.content
