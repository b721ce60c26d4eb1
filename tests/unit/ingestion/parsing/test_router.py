"""``ParserRouter``: routing by source type, no silent drops, cached replay without re-reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.filters import ContentFormatFilter, SourceTypeFilter
from fastrag.ingestion.sources import discover, raw_documents
from fastrag.ingestion.steps.parsing import (
    MarkdownParser,
    ParserRouter,
    TextParser,
    default_parsers,
    office_filter,
)
from fastrag.models import Document
from fastrag.pipeline import (
    CacheHit,
    DocumentParsed,
    EventRecorder,
    ItemFailed,
    NoRouteError,
    Pipeline,
    Policy,
    SqliteCacheStore,
)

FILES = {
    "a.md": b"# A\n\ntext\n",
    "b.rst": b"B\n=\n\ntext\n",
    "c.txt": b"plain\n",
    "d.html": b"<html><body><h1>D</h1></body></html>",
    "e.pdf": b"<!doctype html><html><p>really html</p></html>",
}


def tree(root: Path) -> list[Document]:
    for name, data in FILES.items():
        (root / name).write_bytes(data)
    return list(raw_documents(discover(root)))


def run(
    router: ParserRouter, raw: list[Document], cache: SqliteCacheStore | None = None
) -> tuple[list[Document], EventRecorder]:
    recorder = EventRecorder()
    pipeline = Pipeline(
        router(raw), policy=Policy(on_failure="skip"), cache=cache, listeners=[recorder]
    )
    return pipeline.run_sync(), recorder


def test_default_parsers_route_every_builtin_type(tmp_path: Path) -> None:
    out, recorder = run(default_parsers(), tree(tmp_path))
    assert recorder.failures == ()
    assert [(d.source_id, d.metadata["parser_version"]) for d in out] == [
        ("a.md", "MarkdownParser:1"),
        ("b.rst", "RstParser:1"),
        ("c.txt", "TextParser:1"),
        ("d.html", "HtmlParser:1"),
        ("e.pdf", "HtmlParser:1"),
    ]
    parsed = recorder.of_type(DocumentParsed)
    assert [(e.item_id, e.document_id) for e in parsed] == [(d.source_id, d.id) for d in out]
    assert {e.event_name for e in parsed} == {"Parsing"}


def test_unmatched_type_is_an_item_failure_never_a_drop(tmp_path: Path) -> None:
    router = ParserRouter().route(SourceTypeFilter(include=["markdown"]), MarkdownParser())
    out, recorder = run(router, tree(tmp_path))
    assert [d.source_id for d in out] == ["a.md"]
    failures = recorder.failures
    assert [f.item_id for f in failures] == ["b.rst", "c.txt", "d.html", "e.pdf"]
    assert all(isinstance(f, ItemFailed) for f in failures)
    assert {f.error_type for f in failures} == {NoRouteError.__name__}
    assert "has no route for item 'b.rst'" in failures[0].message


def test_source_types_tell_discovery_what_is_parsable() -> None:
    assert default_parsers().source_types == frozenset(
        {"text", "markdown", "rst", "html", "pdf", "docx", "pptx", "xlsx"}
    )
    nested = ParserRouter().route(
        SourceTypeFilter(include=["markdown", "text"]),
        ParserRouter().route(SourceTypeFilter(include=["markdown"]), MarkdownParser()),
    )
    assert nested.source_types == frozenset({"markdown"})
    assert ParserRouter().default(TextParser()).source_types is None
    opaque = ParserRouter().route(ContentFormatFilter(), TextParser())
    assert opaque.source_types is None


def test_office_filter_matches_office_source_types() -> None:
    docx = Document("w.docx", "w.docx", "", {"source_type": "docx", "path": "/x"})
    pdf = Document("p.pdf", "p.pdf", "", {"source_type": "pdf", "path": "/x"})
    assert (office_filter(docx), office_filter(pdf)) == (True, False)
    assert SourceTypeFilter(exclude=["pdf"])(docx) is True
    assert SourceTypeFilter(include=["docx"])("not a document") is False
    with pytest.raises(ConfigurationError, match="in both include and exclude"):
        SourceTypeFilter(include=["pdf"], exclude=["pdf"])
    with pytest.raises(ConfigurationError, match="must be a list of source types"):
        SourceTypeFilter(include="pdf")


def test_cached_run_replays_parsing_without_reading_files(tmp_path: Path) -> None:
    root = tmp_path / "in"
    root.mkdir()
    raw = tree(root)
    cache = SqliteCacheStore(tmp_path / "cache.sqlite")
    first, _ = run(default_parsers(), raw, cache)
    for name in FILES:  # a re-read would now fail with "deleted between discovery and parsing"
        (root / name).unlink()
    second, recorder = run(default_parsers(), raw, cache)
    assert second == first
    assert recorder.failures == ()
    assert len(recorder.of_type(CacheHit)) == len(FILES)
    assert len(recorder.of_type(DocumentParsed)) == len(FILES)


def test_an_edited_file_misses_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "in"
    root.mkdir()
    cache = SqliteCacheStore(tmp_path / "cache.sqlite")
    run(default_parsers(), tree(root), cache)
    (root / "a.md").write_bytes(b"# A, edited\n")
    second, recorder = run(default_parsers(), list(raw_documents(discover(root))), cache)
    hits = {e.item_id for e in recorder.of_type(CacheHit)}
    assert hits == set(FILES) - {"a.md"}
    assert second[0].content == "# A, edited\n"
