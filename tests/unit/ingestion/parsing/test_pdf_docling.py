"""``PdfParser(output_format="docling")``: a DoclingDocument from the PDF layout, chunked
by ``DoclingChunker`` on the real corpus — headings, pages, boxes, tables, determinism."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from fastrag.ingestion.filters import ContentFormatFilter
from fastrag.ingestion.sources import discover, raw_documents
from fastrag.ingestion.steps.chunking import ChunkerRouter, DoclingChunker
from fastrag.ingestion.steps.parsing.pdf import PdfParser
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import EventRecorder, Pipeline
from tests.unit.ingestion.parsing._pdf_helpers import (
    PDF,
    page_sizes,
    page_texts,
    parse_bytes,
    parsed,
    squash,
)

pytestmark = [
    pytest.mark.docling,
    pytest.mark.skipif(not PDF.is_dir(), reason="shared corpus not present"),
]

docling_types = pytest.importorskip("docling_core.types.doc")

_UNESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_LIST_MARK = re.compile(r"^(?:- |\d{1,9}[.)] )")


@cache
def docling_parsed(name: str) -> Document:
    """A corpus PDF parsed to a serialized DoclingDocument (once per session)."""
    return parse_bytes((PDF / name).read_bytes(), name, PdfParser(output_format="docling"))


def loaded(name: str) -> Any:
    return docling_types.DoclingDocument.model_validate_json(docling_parsed(name).content)


@cache
def chunks(name: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    return tuple((text, dict(meta)) for text, meta in DoclingChunker().split(docling_parsed(name)))


def markdown_heading_paths(name: str) -> list[tuple[str, ...]]:
    """The heading path at every heading of the Markdown rendering of the same layout."""
    stack: list[tuple[int, str]] = []
    paths = []
    for line in parsed(name).content.splitlines():
        match = re.match(r"(#{1,6}) (.*)", line)
        if match:
            level = len(match.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, _UNESCAPE.sub(r"\1", match.group(2))))
            paths.append(tuple(text for _level, text in stack))
    return paths


@pytest.mark.parametrize(
    "name", ["multicolumn.pdf", "acmart-sample-sigconf.pdf", "federal-register-2020-17221.pdf"]
)
def test_metadata_pages_and_headings(name: str) -> None:
    document = docling_parsed(name)
    assert document.metadata["content_format"] == ContentFormat.DOCLING
    assert "pages" not in document.metadata and "layout" not in document.metadata
    assert document.metadata["page_count"] == len(page_sizes(name))
    docling = loaded(name)
    assert docling.origin.filename == name and docling.origin.mimetype == "application/pdf"
    # Every page registered with its size.
    assert sorted(docling.pages) == list(range(1, len(page_sizes(name)) + 1))
    for number, (width, height) in enumerate(page_sizes(name), start=1):
        size = docling.pages[number].size
        assert (size.width, size.height) == pytest.approx((width, height), abs=0.06)
    # Headings: the Markdown rendering's, in order, with the same levels.
    headers = [
        (item.level, item.text)
        for item, _depth in docling.iterate_items()
        if isinstance(item, docling_types.SectionHeaderItem)
    ]
    expected = [(len(path), path[-1]) for path in markdown_heading_paths(name)]
    assert headers == expected and headers


def test_chunk_headings_are_the_layout_heading_paths() -> None:
    name = "acmart-sample-sigconf.pdf"
    paths = set(markdown_heading_paths(name))
    pieces = chunks(name)
    assert len(pieces) > 100
    seen = {tuple(meta["headings"]) for _text, meta in pieces if meta["headings"]}
    assert seen <= paths
    assert ("2 TEMPLATE OVERVIEW", "2.1 Template Styles") in seen
    assert len(seen) >= 0.8 * len(paths)
    # contextualize() puts the heading path before the text.
    text, _meta = next(p for p in pieces if p[1]["headings"][-1:] == ["2.1 Template Styles"])
    assert text.startswith("2 TEMPLATE OVERVIEW\n2.1 Template Styles\n")


@pytest.mark.parametrize(
    "name", ["multicolumn.pdf", "acmart-sample-sigconf.pdf", "federal-register-2020-17221.pdf"]
)
def test_chunk_page_no_is_the_page_its_text_is_printed_on(name: str) -> None:
    texts = page_texts(name)
    checked = 0
    for text, meta in chunks(name):
        page = meta["page_no"]
        assert 1 <= page <= len(texts)
        body = text.split("\n")[len(meta["headings"])] if meta["headings"] else text
        head = _LIST_MARK.sub("", body)[:50]
        if "…" in head or "=" in head:  # shortened dot leaders, table rows as key = value
            continue
        # A row of several cells (authors side by side) may join them in another order
        # than pdfium streams them: then each word must be on the page.
        assert squash(head) in texts[page - 1] or all(
            squash(word) in texts[page - 1] for word in head.split()[:-1]
        ), (page, head)
        checked += 1
    assert checked >= 10


def test_boxes_are_bottom_left_and_match_the_layout_map() -> None:
    name = "acmart-sample-sigconf.pdf"
    markdown = parsed(name)
    start = markdown.content.index("# 1 INTRODUCTION") + 2
    row = next(entry for entry in markdown.metadata["layout"] if entry[0] == start)
    page, box = row[2], row[3:]
    docling = loaded(name)
    heading = next(
        item
        for item, _ in docling.iterate_items()
        if isinstance(item, docling_types.SectionHeaderItem) and item.text == "1 INTRODUCTION"
    )
    (prov,) = heading.prov
    assert prov.page_no == page and prov.charspan == (0, len("1 INTRODUCTION"))
    assert prov.bbox.coord_origin == docling_types.CoordOrigin.BOTTOMLEFT
    height = docling.pages[page].size.height
    top_left = prov.bbox.to_top_left_origin(page_height=height)
    assert [top_left.l, top_left.t, top_left.r, top_left.b] == pytest.approx(box, abs=0.01)
    assert prov.bbox.t > prov.bbox.b  # y grows upwards from the bottom edge
    for item, _ in docling.iterate_items():
        for provenance in getattr(item, "prov", []):
            size = docling.pages[provenance.page_no].size
            bbox = provenance.bbox
            assert 0 <= bbox.l <= bbox.r <= size.width + 0.05
            assert 0 <= bbox.b <= bbox.t <= size.height + 0.05


def test_a_paragraph_across_columns_is_one_item_with_a_provenance_per_part() -> None:
    docling = loaded("multicolumn.pdf")
    (item,) = [item for item in docling.texts if "Donec nonummy pellentesque ante." in item.text]
    assert len(item.prov) == 2
    first, second = item.prov
    assert first.page_no == second.page_no == 1
    assert first.charspan[0] == 0 and second.charspan[1] == len(item.text)
    assert item.text[first.charspan[0] : first.charspan[1]].endswith("Donec nonummy")
    assert item.text[second.charspan[0] : second.charspan[1]].startswith("pellentesque ante.")
    assert second.bbox.l > first.bbox.r  # the right column


def test_tables_come_through_as_table_data() -> None:
    name = "nics-background-checks-2015-11.pdf"
    docling = loaded(name)
    (table,) = docling.tables
    grid = table.data.grid
    assert table.data.num_rows >= 50 and table.data.num_cols >= 20
    alabama = next(row for row in grid if row[0].text == "Alabama")
    assert [cell.text for cell in alabama[:6]] == [
        "Alabama", "18,870", "23,022", "22,650", "859", "1,178"
    ]  # fmt: skip
    assert table.prov[0].page_no == 1
    pieces = chunks(name)
    assert any("Alabama, 1 = 18,870. Alabama, 2 = 23,022." in text for text, _ in pieces)


def test_lists_are_list_groups() -> None:
    docling = loaded("federal-register-2020-17221.pdf")
    items = [item for item in docling.texts if isinstance(item, docling_types.ListItem)]
    fax = next(item for item in items if item.text == "Fax: 202–493–2251.")
    group = fax.parent.resolve(docling)
    assert isinstance(group, docling_types.ListGroup)
    siblings = [child.resolve(docling).text for child in group.children]
    assert siblings[0].startswith("Federal eRulemaking Portal: Go to https://www.regulations.gov.")
    assert siblings[1:3] == ["Fax: 202–493–2251.", siblings[2]]
    assert siblings[2].startswith("Mail: U.S. Department of Transportation")
    assert fax.marker and not fax.enumerated


def test_same_bytes_same_json_and_it_is_docling_parsers_serialization() -> None:
    name = "acmart-sample-sigconf.pdf"
    data = (PDF / name).read_bytes()
    parser = PdfParser(output_format="docling")
    with ThreadPoolExecutor(max_workers=3) as pool:
        contents = {
            document.content
            for document in pool.map(lambda _: parse_bytes(data, name, parser), range(4))
        }
    assert contents == {docling_parsed(name).content}
    content = docling_parsed(name).content
    # DoclingParser's dump: sorted keys, compact, no ASCII escapes — and stable through a
    # round trip of the model.
    canonical = json.dumps(
        json.loads(content), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    assert content == canonical
    again = docling_types.DoclingDocument.model_validate_json(content).export_to_dict()
    assert json.dumps(again, sort_keys=True, ensure_ascii=False, separators=(",", ":")) == content
    assert "Thørväld" in content  # not \\u-escaped


def test_config_and_cache_identity_name_the_output_format() -> None:
    markdown, docling = PdfParser(), PdfParser(output_format="docling")
    assert docling.config()["output_format"] == "docling"
    assert markdown.config_hash != docling.config_hash


def test_the_seed_route_over_pdf_parser_output(tmp_path: Path) -> None:
    for name in ("multicolumn.pdf", "nics-background-checks-2015-11.pdf"):
        (tmp_path / name).write_bytes((PDF / name).read_bytes())
    raw = list(raw_documents(discover(tmp_path, parsable_types=None)))
    parser = PdfParser(output_format="docling")
    chunker = ChunkerRouter().route(
        ContentFormatFilter(include_formats=[ContentFormat.DOCLING]), DoclingChunker()
    )
    recorder = EventRecorder()
    out = Pipeline(chunker(parser(raw)), listeners=[recorder]).run_sync()
    assert recorder.failures == ()
    by_file = {name: [c for c in out if c.source_id == name] for name in ("multicolumn.pdf",)}
    assert len(by_file["multicolumn.pdf"]) == len(chunks("multicolumn.pdf"))
    assert {c.metadata["content_format"] for c in out} == {ContentFormat.TEXT}
    assert all(isinstance(c.metadata["page_no"], int) for c in out)
    assert {c.source_id for c in out} == {"multicolumn.pdf", "nics-background-checks-2015-11.pdf"}
