"""HeadingChunker: sections, heading paths and the Markdown line scanner behind them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fastrag.exceptions import ChunkingError
from fastrag.ingestion.steps.chunking import HeadingChunker
from fastrag.ingestion.steps.chunking._markdown_headings import plain_title, scan_headings
from fastrag.models import Document
from fastrag.pipeline import InMemoryCacheStore

CASES = Path(__file__).resolve().parents[2] / "cases" / "heading"
_CHUNK_HEADER = re.compile(r"^--- chunk: (.*)\n", re.MULTILINE)


def _expected(path: Path) -> list[tuple[str, list[str]]]:
    """Read ``--- chunk: <json heading path>`` blocks; each block's text is the chunk."""
    blocks = _CHUNK_HEADER.split(path.read_text(encoding="utf-8"))
    assert blocks[0] == "", f"{path.name} must start with a '--- chunk:' header"
    return [
        (text.removesuffix("\n"), json.loads(header))
        for header, text in zip(blocks[1::2], blocks[2::2], strict=True)
    ]


def _split(content: str, content_format: str = "markdown") -> list[tuple[str, list[str]]]:
    document = Document("doc", "doc.md", content, {"content_format": content_format})
    pieces: list[tuple[str, list[str]]] = []
    for piece in HeadingChunker(cache=False).split(document):
        assert isinstance(piece, tuple), "HeadingChunker yields (text, metadata) pieces"
        text, metadata = piece
        pieces.append((text, metadata["headings"]))
    return pieces


@pytest.mark.parametrize("case", sorted(path.stem for path in CASES.glob("*.md")), ids=str)
def test_fixture_case(case: str) -> None:
    source = (CASES / f"{case}.md").read_text(encoding="utf-8")
    assert _split(source) == _expected(CASES / f"{case}.chunks.txt")


def test_every_fixture_has_an_expectation() -> None:
    inputs = {path.stem for path in CASES.glob("*.md")}
    expectations = {path.name.removesuffix(".chunks.txt") for path in CASES.glob("*.chunks.txt")}
    assert inputs == expectations
    assert len(inputs) >= 10


def test_windows_and_old_mac_line_endings_are_line_breaks() -> None:
    source = "# A\r\nalpha\r\n\r\nB\r\n---\r\nbeta\r\n```\r\n# code\r\n```\r# C\rgamma"
    assert _split(source) == [
        ("# A\r\nalpha", ["A"]),
        ("# A\n\nB\r\n---\r\nbeta\r\n```\r\n# code\r\n```", ["A", "B"]),
        ("# C\rgamma", ["C"]),
    ]


def test_other_unicode_line_separators_do_not_break_lines() -> None:
    # str.splitlines() would break on U+2028 and form feed; CommonMark does not.
    source = "intro\u2028# not a heading\x0c# nor this\n# Real"
    headings = scan_headings(source)
    assert [(h.level, h.title) for h in headings] == [(1, "Real")]


def test_heading_offsets_point_at_the_source() -> None:
    source = "pre\n\n  ## Two ##\ntext\n\nSetext\nsecond line\n===\n"
    headings = scan_headings(source)
    assert [(h.level, h.title) for h in headings] == [(2, "Two"), (1, "Setext second line")]
    assert [source[h.start : h.end] for h in headings] == [
        "  ## Two ##",
        "Setext\nsecond line\n===",
    ]


def test_plain_text_documents_are_sectioned_too() -> None:
    assert _split("# Notes\nplain text", content_format="text") == [
        ("# Notes\nplain text", ["Notes"])
    ]


def test_empty_and_blank_documents_yield_nothing() -> None:
    assert _split("") == []
    assert _split(" \n\t\n") == []


def test_front_matter_without_a_closing_line_is_ordinary_text() -> None:
    source = "---\ntitle: x\n\n# Real"
    assert [h.title for h in scan_headings(source)] == ["Real"]


def test_a_longer_tilde_fence_needs_a_long_enough_closer() -> None:
    source = "~~~~\n~~~\n# inside\n~~~~~\n# outside"
    assert [h.title for h in scan_headings(source)] == ["outside"]


def test_a_fence_interrupts_a_paragraph() -> None:
    source = "text\n```\n# inside\n```\nafter\n===\n"
    assert [(h.level, h.title) for h in scan_headings(source)] == [(1, "after")]


def test_lazy_list_continuation_is_not_a_setext_heading() -> None:
    source = "- item\nlazy line\n===\n\nreal\n==="
    assert [h.title for h in scan_headings(source)] == ["real"]


def test_an_atx_heading_ends_a_list() -> None:
    source = "- item\n# After the list\n1. one\n   # inside item one"
    assert [h.title for h in scan_headings(source)] == ["After the list"]


@pytest.mark.parametrize(
    ("markdown", "plain"),
    [
        ("Plain", "Plain"),
        ("**Bold** and *em* and _under_", "Bold and em and under"),
        ("snake_case_name", "snake_case_name"),
        ("`a *not em* b` and `` x`y ``", "a *not em* b and x`y"),
        ("[link](https://x.org) ![img alt](p.png)", "link img alt"),
        ("[ref][1] <https://a.b/c>", "ref https://a.b/c"),
        ("~~old~~ new <em>html</em>", "old new html"),
        (r"\*literal\* \# hash", "*literal* # hash"),
        ("spaced    out\ttext", "spaced out text"),
    ],
)
def test_plain_title(markdown: str, plain: str) -> None:
    assert plain_title(markdown) == plain


def test_config_declares_the_sectioning_version() -> None:
    assert HeadingChunker(cache=False).config() == {"version": 2}
    assert HeadingChunker.accepted_content_formats == frozenset({"markdown", "text"})


async def test_through_the_step_with_inherited_metadata_and_cache_replay() -> None:
    source = (CASES / "consecutive.md").read_text(encoding="utf-8")
    parent = Document("book", "book.md", source, {"content_format": "markdown", "acl": "x"})
    cache = InMemoryCacheStore()
    fresh = await HeadingChunker(cache=cache)([parent]).run()
    assert len(cache) == 1  # the second run below replays this entry
    replayed = await HeadingChunker(cache=cache)([parent]).run()
    assert replayed == fresh
    expected = _expected(CASES / "consecutive.chunks.txt")
    assert [(chunk.content, chunk.metadata["headings"]) for chunk in fresh] == expected
    assert [chunk.metadata["chunk_index"] for chunk in fresh] == list(range(len(expected)))
    assert {chunk.metadata["parent_id"] for chunk in fresh} == {"book"}
    assert {chunk.metadata["acl"] for chunk in fresh} == {"x"}


def test_rejects_formats_it_cannot_read() -> None:
    html = Document("page", "page.html", "<h1>x</h1>", {"content_format": "html"})
    with pytest.raises(ChunkingError, match="'html'"):
        HeadingChunker(cache=False).validate_input(html)
