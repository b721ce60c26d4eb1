"""CharacterTextSplitter: one literal separator, merge with overlap, exact start offsets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.ingestion.steps.chunking import CharacterTextSplitter
from fastrag.models import Document
from fastrag.pipeline import InMemoryCacheStore
from tests.unit.chunking._splitter_support import (
    check_invariants,
    document,
    documents,
    pieces_of,
    sizes,
)


def _chunks(content: str, **options: object) -> list[tuple[str, int]]:
    splitter = CharacterTextSplitter(cache=False, **options)  # type: ignore[arg-type]
    return pieces_of(splitter.split(document(content)))


def _splits(source: str, separator: str) -> set[str]:
    """The splits a single-separator split produces, computed independently with str.split."""
    if separator == "":
        return set(source)
    parts = source.split(separator)
    kept = [part + separator for part in parts[:-1]] + parts[-1:]
    return {part.strip() for part in kept}


@settings(max_examples=200, deadline=None)
@given(
    source=documents(),
    budget=sizes(),
    separator=st.sampled_from(["\n\n", "\n", " ", ". ", ",", "", "x" * 5, "日本"]),
)
def test_invariants(source: str, budget: tuple[int, int], separator: str) -> None:
    chunk_size, chunk_overlap = budget
    pieces = _chunks(
        source, chunk_size=chunk_size, chunk_overlap=chunk_overlap, separator=separator
    )
    check_invariants(source, pieces, chunk_overlap)
    whole_splits = _splits(source, separator)
    for text, _ in pieces:
        if len(text) > chunk_size:
            # never cut inside a split: only a single split may exceed the budget
            assert text in whole_splits, text


def test_merges_splits_up_to_chunk_size() -> None:
    source = "aa\n\nbb\n\ncc\n\ndd"
    assert _chunks(source, chunk_size=6, chunk_overlap=0) == [("aa\n\nbb", 0), ("cc\n\ndd", 8)]


def test_overlap_repeats_whole_splits() -> None:
    source = "aa\n\nbb\n\ncc\n\ndd"
    assert _chunks(source, chunk_size=10, chunk_overlap=2) == [
        ("aa\n\nbb\n\ncc", 0),
        ("cc\n\ndd", 8),
    ]


def test_never_descends_an_oversized_split_is_emitted_whole() -> None:
    long_paragraph = "one line\nanother line\nand a third line"
    source = f"short\n\n{long_paragraph}\n\nend"
    assert _chunks(source, chunk_size=10, chunk_overlap=0) == [
        ("short", 0),
        (long_paragraph, 7),
        ("end", 7 + len(long_paragraph) + 2),
    ]


def test_separator_stays_at_the_end_of_the_chunk_it_closes() -> None:
    assert _chunks("a; b; c", chunk_size=3, chunk_overlap=0, separator="; ") == [
        ("a;", 0),
        ("b;", 3),
        ("c", 6),
    ]


def test_empty_separator_splits_into_characters() -> None:
    assert _chunks("ab cd", chunk_size=2, chunk_overlap=0, separator="") == [
        ("ab", 0),
        ("cd", 3),
    ]


def test_start_index_of_repeated_text_is_each_occurrence() -> None:
    source = "dup\n\ndup\n\ndup"
    assert _chunks(source, chunk_size=3, chunk_overlap=0) == [("dup", 0), ("dup", 5), ("dup", 10)]


def test_blank_documents_yield_nothing() -> None:
    assert _chunks("") == []
    assert _chunks("\n\n \n\n") == []


def test_config_names_every_output_changing_value() -> None:
    splitter = CharacterTextSplitter(chunk_size=500, chunk_overlap=50, separator="\n", cache=False)
    assert splitter.config() == {
        "version": 1,
        "chunk_size": 500,
        "chunk_overlap": 50,
        "separator": "\n",
    }
    default = CharacterTextSplitter(cache=False)
    assert (default.chunk_size, default.chunk_overlap, default.separator) == (1000, 200, "\n\n")


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"chunk_size": 0}, "(got 0)"),
        ({"chunk_size": -10}, "-10"),
        ({"chunk_size": None}, "None"),
        ({"chunk_overlap": -3}, "-3"),
        ({"chunk_overlap": False}, "False"),
        (
            {"chunk_size": 200, "chunk_overlap": 300},
            "'chunk_overlap' (300) must be smaller than 'chunk_size' (200)",
        ),
        ({"separator": None}, "'separator' must be a str"),
        ({"separator": ["\n"]}, "['\\n']"),
    ],
)
def test_invalid_arguments_are_named(options: dict[str, object], named: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        CharacterTextSplitter(cache=False, **options)  # type: ignore[arg-type]
    assert named in str(raised.value)


async def test_seed_snippet_runs_as_written_and_replays_from_cache() -> None:
    cache = InMemoryCacheStore()
    chunker = CharacterTextSplitter(chunk_size=500, chunk_overlap=50, cache=cache)
    paragraphs = [f"Paragraph {n}: " + "text " * 40 for n in range(6)]
    source = "\n\n".join(p.strip() for p in paragraphs)
    parent = Document("parent", "notes.txt", source, {"content_format": "text", "tenant": "t1"})
    fresh = await chunker([parent]).run()
    assert len(cache) == 1  # the second run below replays this entry
    replayed = await CharacterTextSplitter(chunk_size=500, chunk_overlap=50, cache=cache)(
        [parent]
    ).run()
    assert replayed == fresh
    assert len(fresh) > 1
    for index, chunk in enumerate(fresh):
        start = chunk.metadata["start_index"]
        assert source[start : start + len(chunk.content)] == chunk.content
        assert len(chunk.content) <= 500
        assert chunk.metadata["chunk_index"] == index
        assert chunk.metadata["parent_id"] == "parent"
        assert chunk.metadata["tenant"] == "t1"


def test_config_hash_follows_every_output_changing_value() -> None:
    base = CharacterTextSplitter(cache=False).config_hash
    assert CharacterTextSplitter(cache=False).config_hash == base
    assert CharacterTextSplitter(chunk_size=999, cache=False).config_hash != base
    assert CharacterTextSplitter(chunk_overlap=10, cache=False).config_hash != base
    assert CharacterTextSplitter(separator="\n", cache=False).config_hash != base


def test_rejects_formats_it_cannot_read() -> None:
    docling = Document("d", "d.json", "{}", {"content_format": "docling"})
    with pytest.raises(ChunkingError, match="'docling'"):
        CharacterTextSplitter(cache=False).validate_input(docling)
