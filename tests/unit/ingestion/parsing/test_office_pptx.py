"""``PptxParser`` on the real decks of the shared corpus: slides, notes, tables, pages."""

from __future__ import annotations

from itertools import pairwise

import pytest

from fastrag.ingestion.pages import chunk_pages, page_of
from fastrag.ingestion.records import build_records
from fastrag.ingestion.steps.chunking import StructureAwareChunker
from fastrag.ingestion.steps.parsing.pptx import PptxParser
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import IterableSource, Pipeline
from tests._paths import SHARED

OFFICE = SHARED / "corpus" / "office"

pytestmark = pytest.mark.skipif(not OFFICE.is_dir(), reason="shared corpus not present")


def parse(name: str) -> Document:
    parser = PptxParser()
    raw = Document("raw", name, "", {})
    return parser.build_document(raw, parser.parse((OFFICE / name).read_bytes(), raw))


def chunks(document: Document) -> list[tuple[str, dict[str, object]]]:
    chunker = StructureAwareChunker(
        target_tokens=40, max_tokens=80, min_preferred_tokens=1, merge_small_sections=False
    )
    return [(text, dict(meta)) for text, meta in chunker.split(document)]


def assert_pages_cover(document: Document, slides: int) -> None:
    pages = document.metadata["pages"]
    assert [page for _, _, page in pages] == list(range(1, slides + 1))
    assert pages[0][0] == 0 and pages[-1][1] == len(document.content)
    assert all(a[1] == b[0] for a, b in pairwise(pages))
    for number in range(1, slides + 1):  # each slide heading lies on its own page
        offset = document.content.index(f"## Slide {number}")
        assert page_of(pages, offset) == number


def test_powerpoint_sample_titles_table_notes_and_pages() -> None:
    document = parse("powerpoint_sample.pptx")
    content = document.content
    assert document.metadata["content_format"] == ContentFormat.MARKDOWN
    assert document.metadata["parser_version"] == "PptxParser:1"
    assert document.metadata["slides"] == 3
    assert [line for line in content.splitlines() if line.startswith("#")] == [
        "## Slide 1: Test Table Slide",
        "## Slide 2: Second slide title",
        "### Notes",
        "## Slide 3",
        "### Notes",
    ]
    # A horizontally merged header cell repeats over the columns it spans.
    assert "|  | Class1 | Class1 | Class1 | Class2 | Class2 | Class2 |" in content
    assert "| R1 | True | False |  | False | True | True |" in content
    assert "Let’s introduce a list\n\n- With foo\n- Bar\n- And baz things" in content
    assert "### Notes\n\nSome notes on the second slide." in content
    assert "### Notes\n\nFinal notes on the third slide.\n\nSecond line of notes.\n" in content
    # Explicit bullets and numbers on text boxes, read left to right across the slide.
    assert content.index("1. List item4") < content.index("- I1") < content.index("- l1")
    assert_pages_cover(document, 3)


def test_chunks_get_their_slide_as_page_and_title_as_section() -> None:
    document = parse("powerpoint_sample.pptx")
    seen: set[tuple[int, tuple[str, ...]]] = set()
    for _, meta in chunks(document):
        located = chunk_pages(document.metadata, meta["char_start"], meta["char_end"])
        assert located is not None
        page, (first, last), _boxes = located
        path = tuple(meta["heading_path"])
        assert first == last == page
        assert path[0].startswith(f"Slide {page}")
        seen.add((page, path))
    assert (1, ("Slide 1: Test Table Slide",)) in seen
    assert (3, ("Slide 3", "Notes")) in seen


def test_chunk_records_carry_the_slide_number_as_page() -> None:
    document = parse("officer-example.pptx")
    chunker = StructureAwareChunker(
        target_tokens=40, max_tokens=80, min_preferred_tokens=1, merge_small_sections=False
    )
    produced = Pipeline(chunker(IterableSource([document]))).run_sync()
    records = build_records(
        document, produced, tokenizer=chunker.tokenizer, ingestion_version="test"
    )
    assert [(r["page"], r["section"].split(":")[0]) for r in records] == [
        (1, "Slide 1"),
        (1, "Slide 1"),
        (2, "Slide 2"),
        (3, "Slide 3"),
    ]
    assert all(r["metadata"]["page_range"] == [r["page"], r["page"]] for r in records)
    assert all("pages" not in r["metadata"] for r in records)


def test_officer_deck_french_layouts_untitled_slide_and_nested_list() -> None:
    document = parse("officer-example.pptx")
    content = document.content
    assert "## Slide 1: Title" in content and "## Slide 2: Hi" in content
    assert "\n## Slide 3\n" in content  # no title placeholder on that slide
    # The layout's list style switches bullets off ("A table" is a caption, not an item).
    assert "## Slide 1: Title\n\nA table\n\nand some text\n\n- and some list (1)" in content
    assert "- This is\n  - an unordered\n    - list of paragraphs\n1. This is an ordered" in content
    assert "| Header 1 | Header 2 | Header 3 |\n|---|---|---|\n| A | 12.23 | blah blah |" in content
    assert "|  |  |  |  |  |\n|---|---|---|---|---|\n| a | a |  |  | d |" in content
    assert document.metadata["parse_diagnostics"] == (
        "pictures: 1 not rendered (no text extracted)",
    )
    assert_pages_cover(document, 3)
    assert {next(iter(meta["heading_path"])) for _, meta in chunks(document)} == {
        "Slide 1: Title",
        "Slide 2: Hi",
        "Slide 3",
    }


def test_pictures_are_counted_and_text_boxes_kept() -> None:
    document = parse("powerpoint_with_image.pptx")
    assert document.content == "## Slide 1: Docling\n\nImage test\n\nImage linked to file\n"
    assert document.metadata["parse_diagnostics"] == (
        "pictures: 2 not rendered (no text extracted)",
    )
    assert document.metadata["pages"] == ((0, len(document.content), 1),)


@pytest.mark.parametrize("name", sorted(p.name for p in OFFICE.glob("*.pptx")))
def test_every_pptx_parses_deterministically(name: str) -> None:
    assert parse(name) == parse(name)
