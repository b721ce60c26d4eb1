"""RecursiveCharacterTextSplitter: hierarchy, budget, overlap and exact start offsets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.ingestion.steps.chunking import RecursiveCharacterTextSplitter
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
    splitter = RecursiveCharacterTextSplitter(cache=False, **options)  # type: ignore[arg-type]
    return pieces_of(splitter.split(document(content)))


@settings(max_examples=200, deadline=None)
@given(source=documents(), budget=sizes())
def test_default_hierarchy_invariants(source: str, budget: tuple[int, int]) -> None:
    chunk_size, chunk_overlap = budget
    pieces = _chunks(source, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    check_invariants(source, pieces, chunk_overlap)
    # with "" as the last separator every piece can fit, so every chunk does
    assert all(len(text) <= chunk_size for text, _ in pieces)


@settings(max_examples=100, deadline=None)
@given(
    source=documents(),
    budget=sizes(),
    separators=st.lists(
        st.sampled_from(["\n\n", "\n", " ", ". ", ",", "a", "日本", "x" * 5]),
        min_size=1,
        max_size=4,
    ),
)
def test_custom_hierarchy_invariants(
    source: str, budget: tuple[int, int], separators: list[str]
) -> None:
    chunk_size, chunk_overlap = budget
    pieces = _chunks(
        source, chunk_size=chunk_size, chunk_overlap=chunk_overlap, separators=separators
    )
    check_invariants(source, pieces, chunk_overlap)
    for text, _ in pieces:
        if len(text) > chunk_size:
            # only a piece that no given separator splits may exceed the budget
            assert not any(sep in text.removesuffix(sep) for sep in separators), text


@settings(max_examples=50, deadline=None)
@given(source=documents(), budget=sizes())
def test_output_is_deterministic(source: str, budget: tuple[int, int]) -> None:
    chunk_size, chunk_overlap = budget
    first = _chunks(source, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    assert _chunks(source, chunk_size=chunk_size, chunk_overlap=chunk_overlap) == first


def test_breaks_at_blank_lines_whenever_it_can() -> None:
    paragraphs = ["alpha " * 4, "beta line one\nbeta line two", "gamma " * 3]
    source = "\n\n".join(p.strip() for p in paragraphs)
    assert [text for text, _ in _chunks(source, chunk_size=30, chunk_overlap=0)] == [
        "alpha alpha alpha alpha",
        "beta line one\nbeta line two",
        "gamma gamma gamma",
    ]


def test_descends_only_into_the_piece_that_does_not_fit() -> None:
    source = "short one\n\nshort two\n\n" + "word " * 8 + "\n\nshort three"
    texts = [text for text, _ in _chunks(source, chunk_size=22, chunk_overlap=0)]
    assert texts == [
        "short one\n\nshort two",
        "word word word word",
        "word word word word",
        "short three",
    ]


def test_overlap_repeats_whole_pieces_up_to_chunk_overlap() -> None:
    source = "one two three four five six"
    assert _chunks(source, chunk_size=13, chunk_overlap=5) == [
        ("one two three", 0),
        ("three four", 8),
        ("four five six", 14),
    ]


def test_characters_are_the_last_resort() -> None:
    assert _chunks("abcdefghij", chunk_size=4, chunk_overlap=1) == [
        ("abcd", 0),
        ("defg", 3),
        ("ghij", 6),
    ]


def test_start_index_of_repeated_text_is_each_occurrence() -> None:
    source = "same text\n\nsame text\n\nsame text"
    assert _chunks(source, chunk_size=9, chunk_overlap=0) == [
        ("same text", 0),
        ("same text", 11),
        ("same text", 22),
    ]


def test_a_separator_stays_at_the_end_of_the_chunk_it_closes() -> None:
    source = "One. Two. Three."
    assert _chunks(source, chunk_size=6, chunk_overlap=0, separators=[". ", ""]) == [
        ("One.", 0),
        ("Two.", 5),
        ("Three.", 10),
    ]


def test_an_unsplittable_piece_is_emitted_whole_without_an_empty_separator() -> None:
    source = "tiny\n\n" + "x" * 30 + "\n\ntiny"
    assert _chunks(source, chunk_size=10, chunk_overlap=0, separators=["\n\n"]) == [
        ("tiny", 0),
        ("x" * 30, 6),
        ("tiny", 38),
    ]


def test_blank_documents_yield_nothing() -> None:
    assert _chunks("") == []
    assert _chunks(" \n\n\t ") == []


def test_unicode_is_measured_in_code_points() -> None:
    source = "日本語のテキスト 🙂🙂🙂"
    assert _chunks(source, chunk_size=8, chunk_overlap=0) == [
        ("日本語のテキスト", 0),
        ("🙂🙂🙂", 9),
    ]


def test_config_names_every_output_changing_value() -> None:
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=500, chunk_overlap=50, separators=("\n", ""), cache=False
    )
    assert splitter.config() == {
        "version": 1,
        "chunk_size": 500,
        "chunk_overlap": 50,
        "separators": ["\n", ""],
    }
    default = RecursiveCharacterTextSplitter(cache=False)
    assert default.config()["separators"] == ["\n\n", "\n", " ", ""]
    assert (default.chunk_size, default.chunk_overlap) == (1000, 200)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"chunk_size": 0}, "'chunk_size'"),
        ({"chunk_size": -5}, "-5"),
        ({"chunk_size": True}, "True"),
        ({"chunk_size": "500"}, "'500'"),
        ({"chunk_overlap": -1}, "-1"),
        ({"chunk_overlap": 2.5}, "2.5"),
        (
            {"chunk_size": 200, "chunk_overlap": 300},
            "'chunk_overlap' (300) must be smaller than 'chunk_size' (200)",
        ),
        ({"chunk_size": 200, "chunk_overlap": 200}, "(200)"),
        ({"separators": []}, "'separators' must not be empty"),
        ({"separators": "\n"}, "'\\n'"),
        ({"separators": ["\n", 3]}, "'separators[1]'"),
        ({"separators": ("\n", None)}, "None"),
    ],
)
def test_invalid_arguments_are_named(options: dict[str, object], named: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        RecursiveCharacterTextSplitter(cache=False, **options)  # type: ignore[arg-type]
    assert named in str(raised.value)


async def test_seed_snippet_runs_as_written_and_replays_from_cache() -> None:
    cache = InMemoryCacheStore()
    chunker = RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=50, cache=cache)
    block = "A sentence that repeats. " * 30 + "\n\nA short paragraph.\n"
    source = block * 4  # repeated text: every start_index must still be its own
    parent = Document("parent", "notes.md", source, {"content_format": "markdown"})
    fresh = await chunker([parent]).run()
    assert len(cache) == 1  # the second run below replays this entry
    replayed = await RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=50, cache=cache)(
        [parent]
    ).run()
    assert replayed == fresh
    starts = [chunk.metadata["start_index"] for chunk in fresh]
    assert starts == sorted(set(starts))
    for index, chunk in enumerate(fresh):
        start = chunk.metadata["start_index"]
        assert source[start : start + len(chunk.content)] == chunk.content
        assert len(chunk.content) <= 500
        assert chunk.metadata["chunk_index"] == index
        assert chunk.metadata["content_format"] == "markdown"


def test_config_hash_follows_every_output_changing_value() -> None:
    base = RecursiveCharacterTextSplitter(cache=False).config_hash
    assert RecursiveCharacterTextSplitter(cache=False).config_hash == base
    assert RecursiveCharacterTextSplitter(chunk_size=999, cache=False).config_hash != base
    assert RecursiveCharacterTextSplitter(chunk_overlap=10, cache=False).config_hash != base
    reordered = RecursiveCharacterTextSplitter(separators=["\n", "\n\n", " ", ""], cache=False)
    assert reordered.config_hash != base


def test_rejects_formats_it_cannot_read() -> None:
    docling = Document("d", "d.json", "{}", {"content_format": "docling"})
    with pytest.raises(ChunkingError, match="'docling'"):
        RecursiveCharacterTextSplitter(cache=False).validate_input(docling)
