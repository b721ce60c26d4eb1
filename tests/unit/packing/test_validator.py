"""The independent validator accepts hand-built valid chunks and rejects every mutation."""

from __future__ import annotations

import ast
import copy
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.models import Document
from fastrag.normalization import (
    CoverageUnit,
    Exclusion,
    NormalizedDocument,
    NormalizedNode,
    NormalizerRegistry,
    SourceSpan,
)
from fastrag.packing.validation import ChunkValidation
from fastrag.packing.validator import validate_structure_chunks
from tests.unit.packing._hand_chunks import (
    ORCHARD,
    TOKENIZER,
    heading_tree,
    node_ids,
    orchard_pieces,
    piece,
    recount,
    unit_span,
)

Pieces = list[tuple[str, dict[str, Any]]]

GUIDE = "# Guide\nOne two. Three four. Five six.\n"


def validate(normalized: NormalizedDocument, pieces: Any, **options: Any) -> ChunkValidation:
    arguments: dict[str, Any] = {"max_tokens": 160, "min_preferred_tokens": 20, **options}
    max_tokens = arguments.pop("max_tokens")
    return validate_structure_chunks(normalized, pieces, TOKENIZER, max_tokens, **arguments)


@pytest.fixture
def orchard() -> NormalizedDocument:
    return heading_tree(ORCHARD)


def guide_pieces(normalized: NormalizedDocument) -> Pieces:
    """A split paragraph: the second part repeats the first part's last sentence."""
    (section,) = node_ids(normalized, "section")
    (heading,) = node_ids(normalized, "heading")
    (paragraph,) = node_ids(normalized, "paragraph")
    start, end = unit_span(normalized, paragraph)
    assert normalized.content[start:end] == "One two. Three four. Five six."
    first = piece(
        normalized,
        [unit_span(normalized, heading), (start, start + 21)],
        section_ids=[section],
        heading_ids=[heading],
        displayed=[heading],
        chunk_kind="split",
    )
    second = piece(
        normalized,
        [(start + 21, end)],
        section_ids=[section],
        heading_ids=[heading],
        overlap=(start + 9, start + 20),
        chunk_kind="split",
    )
    return [first, second]


# -- accepting valid output -----------------------------------------------------------


def test_accepts_hand_built_section_chunks(orchard: NormalizedDocument) -> None:
    report = validate(orchard, orchard_pieces(orchard), min_preferred_tokens=50)
    assert report.chunk_count == 2
    assert report.classification == "chunked"
    assert report.token_counts == (40, 40)
    assert report.embedding_tokens == 80
    assert report.retained_characters == orchard.retained_characters == 65
    assert report.excluded_characters == 5
    assert (report.merged_chunks, report.split_chunks, report.oversized_chunks) == (1, 0, 0)
    assert report.small_chunks == 2
    assert report.validation_seconds >= 0.0
    assert (report.cached_chunks, report.model_calls, report.operation_seconds) == (0, 0, 0.0)


def test_accepts_split_prose_with_overlap() -> None:
    normalized = heading_tree(GUIDE)
    pieces = guide_pieces(normalized)
    assert pieces[1][0] == "Three four.\n\nFive six."
    report = validate(normalized, pieces, max_overlap_tokens=11)
    assert report.split_chunks == 2
    assert report.retained_characters == len("# Guide") + len("One two. Three four. Five six.")


def test_overlap_over_its_ceiling_is_rejected() -> None:
    normalized = heading_tree(GUIDE)
    with pytest.raises(ChunkingError, match=r"chunk 1: overlap budget: .* 11 tokens > .* 10"):
        validate(normalized, guide_pieces(normalized), max_overlap_tokens=10)


def test_accepts_persisted_documents_after_a_json_round_trip(orchard: NormalizedDocument) -> None:
    fresh = validate(orchard, orchard_pieces(orchard))
    documents = [
        Document(
            f"chunk-{index}",
            "hand",
            content,
            {**json.loads(json.dumps(metadata)), "chunk_index": index, "parent_id": "doc"},
        )
        for index, (content, metadata) in enumerate(orchard_pieces(orchard))
    ]
    assert isinstance(documents[0].metadata["retained_intervals"], list)
    replayed = validate(orchard, documents)
    assert dataclasses.replace(replayed, validation_seconds=0.0) == dataclasses.replace(
        fresh, validation_seconds=0.0
    )


@pytest.mark.parametrize(
    ("updates", "position", "match"),
    [
        ({"chunk_index": 2}, 1, r"chunk 1: chunk_index: .*got 2"),
        ({"chunk_index": "1"}, 1, r"chunk 1: chunk_index"),
        (
            {"parent_id": "other"},
            0,
            r"chunk 0: parent_id: expected the normalized parent's id 'doc' \(got 'other'\)",
        ),
    ],
)
def test_persisted_documents_need_contiguous_indices_and_their_parent(
    orchard: NormalizedDocument, updates: dict[str, Any], position: int, match: str
) -> None:
    documents = [
        Document(f"c{i}", "hand", content, {**metadata, "chunk_index": i, "parent_id": "doc"})
        for i, (content, metadata) in enumerate(orchard_pieces(orchard))
    ]
    documents[position] = documents[position].with_metadata(**updates)
    with pytest.raises(ChunkingError, match=match):
        validate(orchard, documents)


def test_rendered_runs_map_decoded_text_into_retained_units() -> None:
    source = "<h1>Tea</h1><p>Milk &amp; sugar</p>"
    heading_span, paragraph_span = SourceSpan(4, 7), SourceSpan(15, 31)
    nodes = (
        NormalizedNode("r", "document", "", (SourceSpan(0, 35),), None, ("s",)),
        NormalizedNode("s", "section", "Tea", (SourceSpan(0, 35),), "r", ("h", "p"), 1),
        NormalizedNode("h", "heading", "Tea", (heading_span,), "s", (), 1),
        NormalizedNode("p", "paragraph", "Milk & sugar", (paragraph_span,), "s"),
    )
    units = (CoverageUnit("uh", "h", heading_span), CoverageUnit("up", "p", paragraph_span))
    markup = [(0, 4), (7, 15), (31, 35)]
    exclusions = tuple(Exclusion(SourceSpan(a, b), "markup") for a, b in markup)
    parent = Document("page", "hand", source, {"content_format": "html"})
    normalized = NormalizedDocument(parent, "html", nodes, units, exclusions).validate()
    runs = [
        (0, 3, 4, 7, "source"),
        (3, 5, -1, -1, "separator"),
        (5, 10, 15, 20, "source"),
        (10, 11, 20, 25, "rendered"),
        (11, 17, 25, 31, "source"),
    ]
    content, metadata = piece(normalized, [(4, 7), (15, 31)], section_ids=["s"], heading_ids=["h"])
    content = "Tea\n\nMilk & sugar"
    metadata = recount(content, {**metadata, "serialization_map": tuple(runs)})
    metadata["displayed_heading_ids"] = ("h",)
    metadata = recount(content, metadata)
    assert validate(normalized, [(content, metadata)]).retained_characters == 19
    into_markup = [*runs[:3], (10, 11, 7, 12, "rendered"), runs[4]]
    with pytest.raises(ChunkingError, match="outside this chunk's retained intervals"):
        validate(normalized, [(content, {**metadata, "serialization_map": tuple(into_markup)})])


# -- classification -------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_documents_without_retained_units_are_empty(text: str) -> None:
    report = validate(heading_tree(text), [])
    assert (report.classification, report.chunk_count, report.retained_characters) == (
        "empty",
        0,
        0,
    )
    assert report.excluded_characters == len(text)


def test_heading_only_documents_may_have_no_chunks() -> None:
    normalized = heading_tree("# Orchard\n## Water\n")
    assert validate(normalized, []).classification == "hierarchy_only"
    headings = node_ids(normalized, "heading")
    sections = node_ids(normalized, "section")
    whole = piece(
        normalized,
        [unit_span(normalized, h) for h in headings],
        section_ids=sections,
        heading_ids=headings[:1],
        displayed=headings,
    )
    report = validate(normalized, [whole])
    assert (report.classification, report.chunk_count) == ("hierarchy_only", 1)
    partial = piece(
        normalized,
        [unit_span(normalized, headings[0])],
        section_ids=sections[:1],
        heading_ids=headings[:1],
        displayed=headings[:1],
    )
    with pytest.raises(ChunkingError, match=r"coverage: retained source \[10, 18\)"):
        validate(normalized, [partial])


def test_a_document_with_body_but_no_chunks_is_rejected(orchard: NormalizedDocument) -> None:
    with pytest.raises(ChunkingError, match=r"coverage: retained source \[0, 9\) .* 0 chunks"):
        validate(orchard, [])


# -- rejecting mutated output ---------------------------------------------------------


def _drop_first(pieces: Pieces) -> Pieces:
    return pieces[1:]


def _drop_last(pieces: Pieces) -> Pieces:
    return pieces[:-1]


def _shift_chunk(pieces: Pieces) -> Pieces:
    """Move every source coordinate of chunk 1 one character right."""
    content, metadata = pieces[1]
    shifted = {
        **metadata,
        "char_start": metadata["char_start"] + 1,
        "char_end": metadata["char_end"] + 1,
        "retained_intervals": tuple((a + 1, b + 1) for a, b in metadata["retained_intervals"]),
        "serialization_map": tuple(
            (d0, d1, s0 + 1 if s0 >= 0 else s0, s1 + 1 if s1 >= 0 else s1, kind)
            for d0, d1, s0, s1, kind in metadata["serialization_map"]
        ),
    }
    return [pieces[0], (content, shifted)]


def _shift_retained_only(pieces: Pieces) -> Pieces:
    content, metadata = pieces[1]
    intervals = metadata["retained_intervals"]
    return [
        pieces[0],
        (
            content,
            {
                **metadata,
                "retained_intervals": ((intervals[0][0] + 1, intervals[0][1]), *intervals[1:]),
            },
        ),
    ]


def _tamper_count(pieces: Pieces) -> Pieces:
    content, metadata = pieces[0]
    return [
        (content, {**metadata, "embedding_token_count": metadata["embedding_token_count"] - 1}),
        pieces[1],
    ]


def _wrong_title(pieces: Pieces) -> Pieces:
    content, metadata = pieces[1]
    path = ("Orchards", *metadata["heading_path"][1:])
    return [pieces[0], (content, recount(content, {**metadata, "heading_path": path}))]


def _wrong_heading_ids(pieces: Pieces) -> Pieces:
    content, metadata = pieces[1]
    mutated = {
        **metadata,
        "heading_ids": metadata["heading_ids"][1:],
        "heading_path": metadata["heading_path"][1:],
    }
    return [pieces[0], (content, recount(content, mutated))]


def _map_gap(pieces: Pieces) -> Pieces:
    content, metadata = pieces[0]
    runs = list(metadata["serialization_map"])
    d0, d1, s0, s1, kind = runs[1]
    runs[1] = (d0 + 1, d1, s0, s1, kind)
    return [(content, {**metadata, "serialization_map": tuple(runs)}), pieces[1]]


def _map_wrong_source(pieces: Pieces) -> Pieces:
    content, metadata = pieces[0]
    runs = list(metadata["serialization_map"])
    d0, d1, s0, s1, kind = runs[-1]
    runs[-1] = (d0, d1, s0 + 1, s1 + 1, kind)
    return [(content, {**metadata, "serialization_map": tuple(runs)}), pieces[1]]


def _separator_as_source(pieces: Pieces) -> Pieces:
    content, metadata = pieces[0]
    runs = list(metadata["serialization_map"])
    d0, d1, _, _, _ = runs[1]
    runs[1] = (d0, d1, 9, 11, "source")
    return [(content, {**metadata, "serialization_map": tuple(runs)}), pieces[1]]


def _reorder(pieces: Pieces) -> Pieces:
    return [pieces[1], pieces[0]]


def _overflow_without_need(pieces: Pieces) -> Pieces:
    content, metadata = pieces[0]
    return [(content, {**metadata, "overflow": True}), pieces[1]]


def _foreign_document(pieces: Pieces) -> Pieces:
    content, metadata = pieces[0]
    return [(content, {**metadata, "document_id": "another"}), pieces[1]]


def _missing_section(pieces: Pieces) -> Pieces:
    content, metadata = pieces[0]
    return [(content, {**metadata, "section_ids": metadata["section_ids"][:1]}), pieces[1]]


def _heading_as_section(pieces: Pieces) -> Pieces:
    content, metadata = pieces[1]
    return [pieces[0], (content, {**metadata, "section_ids": (metadata["heading_ids"][-1],)})]


def _phantom_displayed_heading(pieces: Pieces) -> Pieces:
    content, metadata = pieces[1]
    displayed = (*metadata["displayed_heading_ids"], metadata["heading_ids"][0])
    return [
        pieces[0],
        (content, recount(content, {**metadata, "displayed_heading_ids": displayed})),
    ]


def _unlisted_displayed_heading(pieces: Pieces) -> Pieces:
    content, metadata = pieces[1]
    return [pieces[0], (content, recount(content, {**metadata, "displayed_heading_ids": ()}))]


def _wrong_projection(pieces: Pieces) -> Pieces:
    content, metadata = pieces[0]
    projection = metadata["structure_metadata"]
    kinds = ("paragraph", *projection["kinds"][1:])
    return [
        (content, {**metadata, "structure_metadata": {**projection, "kinds": kinds}}),
        pieces[1],
    ]


def _retain_excluded_newline(pieces: Pieces) -> Pieces:
    """Chunk 1 also claims the excluded newline at the end of the document."""
    content, metadata = pieces[1]
    *rest, (a, b) = metadata["retained_intervals"]
    *runs, (d0, d1, s0, s1, kind) = metadata["serialization_map"]
    content += "\n"
    mutated = {
        **metadata,
        "char_end": b + 1,
        "retained_intervals": (*rest, (a, b + 1)),
        "serialization_map": (*runs, (d0, d1 + 1, s0, s1 + 1, kind)),
    }
    return [pieces[0], (content, recount(content, mutated))]


def _context_without_run(pieces: Pieces) -> Pieces:
    content, metadata = pieces[0]
    return [(content, {**metadata, "repeated_context": ((0, 9, "heading"),)}), pieces[1]]


ORCHARD_MUTATIONS: dict[str, tuple[Callable[[Pieces], Pieces], str]] = {
    "dropped first chunk": (
        _drop_first,
        r"coverage: retained source \[0, 9\) is covered by no chunk \(before chunk 0",
    ),
    "dropped last chunk": (
        _drop_last,
        r"coverage: retained source \[39, 46\) is covered by no chunk \(after chunk 0",
    ),
    "shifted span": (_shift_chunk, r"chunk 1: serialization map: .* must round-trip"),
    "shifted retained interval": (
        _shift_retained_only,
        r"chunk 1: char_start/char_end: .*\[40, 69\) .*\[39, 69\)",
    ),
    "tampered token count": (
        _tamper_count,
        r"chunk 0: token count: .* counts 40 tokens but .* records 39",
    ),
    "wrong heading title": (
        _wrong_title,
        r"chunk 1: lineage \(heading path\): heading_path\[0\] is 'Orchards'",
    ),
    "wrong heading ids": (
        _wrong_heading_ids,
        r"chunk 1: lineage \(heading path\): .*has heading ids",
    ),
    "map gap": (
        _map_gap,
        r"chunk 0: serialization map: serialization_map\[1\] .*must start at display offset 9",
    ),
    "map wrong source": (_map_wrong_source, r"chunk 0: serialization map: .* must round-trip"),
    "separator claims source": (
        _separator_as_source,
        r"chunk 0: serialization map: .* must round-trip",
    ),
    "reordered chunks": (
        _reorder,
        r"chunk 1: ordering: char_start 0 must be greater than chunk 0's char_start 39",
    ),
    "overflow flag without overflow": (
        _overflow_without_need,
        r"chunk 0: overflow flag: .* 40 tokens <= max_tokens 160",
    ),
    "foreign document": (
        _foreign_document,
        r"chunk 0: lineage \(document_id\): expected 'doc' \(got 'another'\)",
    ),
    "missing section": (_missing_section, r"chunk 0: lineage \(section_ids\): .* 2 section\(s\)"),
    "heading listed as section": (
        _heading_as_section,
        r"chunk 1: lineage \(section_ids\): .*must name a 'section' node .*found a 'heading' node",
    ),
    "phantom displayed heading": (
        _phantom_displayed_heading,
        r"chunk 1: lineage \(displayed_heading_ids\): .* neither retained nor repeated",
    ),
    "unlisted displayed heading": (
        _unlisted_displayed_heading,
        r"chunk 1: lineage \(displayed_heading_ids\): .*would repeat it",
    ),
    "wrong node projection": (
        _wrong_projection,
        r"chunk 0: structure_metadata: node_ids\[0\] .* recorded as 'paragraph' \(kind 'heading'",
    ),
    "excluded source retained": (
        _retain_excluded_newline,
        r"chunk 1: coverage: retained source \[69, 70\) is not a coverage unit",
    ),
    "context entry without context run": (
        _context_without_run,
        r"chunk 0: repeated_context: heading \[0, 9\)",
    ),
}


@pytest.mark.parametrize("name", sorted(ORCHARD_MUTATIONS))
def test_mutated_section_chunks_are_rejected(orchard: NormalizedDocument, name: str) -> None:
    mutate, match = ORCHARD_MUTATIONS[name]
    pieces = orchard_pieces(orchard)
    validate(orchard, pieces)  # the unmutated chunks are valid
    with pytest.raises(ChunkingError, match=match):
        validate(orchard, mutate(copy.deepcopy(pieces)))


def test_budget_violation_needs_the_overflow_flag(orchard: NormalizedDocument) -> None:
    pieces = orchard_pieces(orchard)
    with pytest.raises(
        ChunkingError, match=r"chunk 0: budget: .* 40 tokens > max_tokens 39 .*no overflow flag"
    ):
        validate(orchard, pieces, max_tokens=39)
    flagged = [(content, {**metadata, "overflow": True}) for content, metadata in pieces]
    assert validate(orchard, flagged, max_tokens=39).oversized_chunks == 2


def _overlap_as_retained(pieces: Pieces) -> Pieces:
    """Chunk 1 lists its overlap among its retained intervals too."""
    content, metadata = pieces[1]
    (overlap,) = metadata["overlap_intervals"]
    retained = (overlap, *metadata["retained_intervals"])
    return [
        pieces[0],
        (content, {**metadata, "retained_intervals": retained, "char_start": overlap[0]}),
    ]


def _overlap_turned_source(pieces: Pieces) -> Pieces:
    """Chunk 1 shows its overlap as newly retained source: both chunks now claim it."""
    content, metadata = pieces[1]
    (overlap,) = metadata["overlap_intervals"]
    runs = tuple(
        (*run[:4], "source" if run[4] == "overlap" else run[4])
        for run in metadata["serialization_map"]
    )
    mutated = {
        **metadata,
        "retained_intervals": (overlap, *metadata["retained_intervals"]),
        "char_start": overlap[0],
        "overlap_intervals": (),
        "serialization_map": runs,
    }
    return [pieces[0], (content, mutated)]


def _overlap_on_first_chunk(pieces: Pieces) -> Pieces:
    content, metadata = pieces[0]
    return [(content, {**metadata, "overlap_intervals": ((9, 11),)}), pieces[1]]


def _overlap_without_run(pieces: Pieces) -> Pieces:
    content, metadata = pieces[1]
    ((start, end),) = metadata["overlap_intervals"]
    return [pieces[0], (content, {**metadata, "overlap_intervals": ((start, end - 1),)})]


GUIDE_MUTATIONS: dict[str, tuple[Callable[[Pieces], Pieces], str]] = {
    "overlap listed as retained": (
        _overlap_as_retained,
        r"chunk 1: overlap counted as coverage: source \[17, 28\)",
    ),
    "overlap shown as source": (
        _overlap_turned_source,
        r"chunk 1: coverage: source \[17, 28\) is retained by both chunk 0 and chunk 1",
    ),
    "overlap on the first chunk": (
        _overlap_on_first_chunk,
        r"chunk 0: overlap_intervals: recorded \[\(9, 11\)\] but the 'overlap' map runs show \[\]",
    ),
    "overlap without its run": (
        _overlap_without_run,
        r"chunk 1: overlap_intervals: recorded \[\(17, 27\)\]",
    ),
}


@pytest.mark.parametrize("name", sorted(GUIDE_MUTATIONS))
def test_mutated_overlap_is_rejected(name: str) -> None:
    normalized = heading_tree(GUIDE)
    mutate, match = GUIDE_MUTATIONS[name]
    pieces = guide_pieces(normalized)
    with pytest.raises(ChunkingError, match=match):
        validate(normalized, mutate(copy.deepcopy(pieces)))


def test_overlap_never_crosses_sections() -> None:
    normalized = heading_tree("# A\nAlpha one. Alpha two.\n# B\nBeta.\n")
    section_a, section_b = node_ids(normalized, "section")
    heading_a, heading_b = node_ids(normalized, "heading")
    paragraph_a, paragraph_b = node_ids(normalized, "paragraph")
    a_start, a_end = unit_span(normalized, paragraph_a)
    first = piece(
        normalized,
        [unit_span(normalized, heading_a), (a_start, a_end)],
        section_ids=[section_a],
        heading_ids=[heading_a],
        displayed=[heading_a],
    )
    second = piece(
        normalized,
        [unit_span(normalized, heading_b), unit_span(normalized, paragraph_b)],
        section_ids=[section_b],
        heading_ids=[heading_b],
        displayed=[heading_b],
        overlap=(a_end - 10, a_end),
    )
    with pytest.raises(
        ChunkingError, match=r"chunk 1: overlap_intervals: .*never crosses sections"
    ):
        validate(normalized, [first, second])
    second_without = piece(
        normalized,
        [unit_span(normalized, heading_b), unit_span(normalized, paragraph_b)],
        section_ids=[section_b],
        heading_ids=[heading_b],
        displayed=[heading_b],
    )
    assert validate(normalized, [first, second_without]).chunk_count == 2


def test_overlap_must_come_from_the_previous_chunk() -> None:
    normalized = heading_tree("# A\nOne. Two.\nThree. Four.\n\nFive.\n")
    (section,) = node_ids(normalized, "section")
    (heading,) = node_ids(normalized, "heading")
    p1, p2 = node_ids(normalized, "paragraph")
    span1, span2 = unit_span(normalized, p1), unit_span(normalized, p2)
    common = {"section_ids": [section], "heading_ids": [heading], "chunk_kind": "split"}
    first = piece(
        normalized,
        [unit_span(normalized, heading), (span1[0], span1[0] + 5)],
        displayed=[heading],
        **common,
    )
    second = piece(normalized, [(span1[0] + 5, span1[1])], **common)
    third = piece(normalized, [span2], overlap=(span1[0], span1[0] + 4), **common)
    with pytest.raises(
        ChunkingError,
        match=r"chunk 2: overlap_intervals: overlap \[\d+, \d+\) is not retained by the previous "
        r"chunk 1",
    ):
        validate(normalized, [first, second, third])


# -- malformed persisted metadata -----------------------------------------------------


MALFORMED: dict[str, tuple[str, Any, str]] = {
    "missing key": (
        "serialization_map",
        None,
        r"chunk 1: metadata\['serialization_map'\]: required key is missing",
    ),
    "string offset": (
        "char_start",
        "39",
        r"chunk 1: metadata\['char_start'\]: expected a nonnegative int \(got str: '39'\)",
    ),
    "bool offset": (
        "char_end",
        True,
        r"chunk 1: metadata\['char_end'\]: expected a nonnegative int \(got bool",
    ),
    "negative offset": (
        "char_start",
        -1,
        r"chunk 1: metadata\['char_start'\]: expected a nonnegative int",
    ),
    "int flag": ("overflow", 1, r"chunk 1: metadata\['overflow'\]: expected a bool \(got int: 1\)"),
    "intervals as text": (
        "retained_intervals",
        "39-69",
        r"chunk 1: metadata\['retained_intervals'\]: expected a tuple",
    ),
    "short map run": (
        "serialization_map",
        ((0, 7, 39, 46),),
        r"chunk 1: metadata\['serialization_map'\]: expected entries of 5 values",
    ),
    "float in run": (
        "serialization_map",
        ((0, 7.0, 39, 46, "source"),),
        r"chunk 1: metadata\['serialization_map'\]: expected entries of "
        r"\(int, int, int, int, str\)",
    ),
    "unknown map kind": (
        "serialization_map",
        ((0, 7, 39, 46, "copied"),),
        r"chunk 1: metadata\['serialization_map'\]: expected a kind in",
    ),
    "unknown context kind": (
        "repeated_context",
        ((0, 7, "footer"),),
        r"chunk 1: metadata\['repeated_context'\]: expected a kind in",
    ),
    "other version": (
        "structure_version",
        "fastrag-structure:v0",
        r"chunk 1: metadata\['structure_version'\]: expected 'fastrag-structure:v1'",
    ),
    "unknown chunk kind": (
        "chunk_kind",
        "whole",
        r"chunk 1: metadata\['chunk_kind'\]: expected one of",
    ),
    "path length": (
        "heading_path",
        ("Orchard",),
        r"chunk 1: heading path: heading_ids has 2 entries but heading_path has 1",
    ),
    "heading id not a str": (
        "heading_ids",
        ("doc:heading:0", 5),
        r"chunk 1: metadata\['heading_ids'\]: expected a tuple of str \(got int: 5\)",
    ),
    "projection not a mapping": (
        "structure_metadata",
        ("x",),
        r"chunk 1: metadata\['structure_metadata'\]: expected a mapping",
    ),
    "projection without kinds": (
        "structure_metadata",
        {"node_ids": ()},
        r"chunk 1: structure_metadata: required field 'kinds' is missing",
    ),
    "empty engine identity": (
        "engine_identity",
        "",
        r"chunk 1: metadata\['engine_identity'\]: expected a nonempty str",
    ),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_metadata_names_the_chunk_and_the_key(
    orchard: NormalizedDocument, name: str
) -> None:
    key, value, match = MALFORMED[name]
    pieces = orchard_pieces(orchard)
    _, metadata = pieces[1]
    if value is None:
        del metadata[key]
    else:
        metadata[key] = value
    with pytest.raises(ChunkingError, match=match):
        validate(orchard, pieces)


@pytest.mark.parametrize("bad", ["text", ("text",), ("text", {}, 3), (3, {})])
def test_pieces_of_another_shape_are_rejected(orchard: NormalizedDocument, bad: Any) -> None:
    with pytest.raises(
        ChunkingError, match=r"chunk 0: piece shape: expected a \(content, metadata\) tuple"
    ):
        validate(orchard, [bad])


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"max_tokens": 0}, r"'max_tokens' must be an int >= 1 \(got 0\)"),
        ({"max_overlap_tokens": -1}, r"'max_overlap_tokens' must be an int >= 0 \(got -1\)"),
        ({"min_preferred_tokens": 2.5}, r"'min_preferred_tokens' must be an int >= 0 \(got 2.5\)"),
    ],
)
def test_invalid_arguments_are_configuration_errors(
    orchard: NormalizedDocument, options: dict[str, Any], match: str
) -> None:
    with pytest.raises(ConfigurationError, match=match):
        validate(orchard, orchard_pieces(orchard), **options)


def test_messages_quote_at_most_a_short_excerpt_of_document_text() -> None:
    sentence = "Pears want water every week in summer and less in autumn. "
    text = "# Long\n" + sentence * 10 + "\n"
    normalized = heading_tree(text)
    (section,) = node_ids(normalized, "section")
    (heading,) = node_ids(normalized, "heading")
    (paragraph,) = node_ids(normalized, "paragraph")
    content, metadata = piece(
        normalized,
        [unit_span(normalized, heading), unit_span(normalized, paragraph)],
        section_ids=[section],
        heading_ids=[heading],
        displayed=[heading],
    )
    runs = list(metadata["serialization_map"])
    d0, d1, s0, s1, kind = runs[-1]
    runs[-1] = (d0, d1, s0 - 1, s1 - 1, kind)
    with pytest.raises(ChunkingError) as caught:
        validate(
            normalized, [(content, {**metadata, "serialization_map": tuple(runs)})], max_tokens=1000
        )
    message = str(caught.value)
    assert "must round-trip" in message
    assert not any(text[i : i + 41] in message for i in range(len(text) - 41))


# -- every single-offset perturbation is caught ----------------------------------------


INTEGER_FIELDS = (
    "char_start",
    "char_end",
    "retained_intervals",
    "serialization_map",
    "embedding_token_count",
)


def _perturb(metadata: dict[str, Any], field: str, position: int, delta: int) -> dict[str, Any]:
    value = metadata[field]
    if isinstance(value, int):
        return {**metadata, field: value + delta}
    rows = [list(row) for row in value]
    cells = [
        (r, c) for r, row in enumerate(rows) for c, cell in enumerate(row) if isinstance(cell, int)
    ]
    r, c = cells[position % len(cells)]
    rows[r][c] += delta
    return {**metadata, field: tuple(tuple(row) for row in rows)}


@settings(max_examples=150, deadline=None)
@given(
    chunk=st.integers(0, 1),
    field=st.sampled_from(INTEGER_FIELDS),
    position=st.integers(0, 40),
    delta=st.sampled_from([-2, -1, 1, 2, 7]),
)
def test_any_single_offset_or_count_perturbation_is_rejected(
    chunk: int, field: str, position: int, delta: int
) -> None:
    normalized = heading_tree(GUIDE)
    pieces = guide_pieces(normalized)
    content, metadata = pieces[chunk]
    pieces[chunk] = (content, _perturb(metadata, field, position, delta))
    with pytest.raises((ChunkingError,)):
        validate(normalized, pieces, max_overlap_tokens=50)


# -- independence from the packer ------------------------------------------------------


PACKING = Path(__file__).resolve().parents[3] / "src" / "fastrag" / "packing"
VALIDATOR_MODULES = (
    "validator.py",
    "validation.py",
    "_validator_intervals.py",
    "_validator_lineage.py",
    "_validator_metadata.py",
)
ALLOWED = (
    "fastrag.packing.contract",
    "fastrag.packing.validation",
    "fastrag.packing._validator_",
    "fastrag.normalization",
    "fastrag.tokenization",
    "fastrag.models",
    "fastrag.exceptions",
)


@pytest.mark.parametrize("module", VALIDATOR_MODULES)
def test_the_validator_imports_no_packer_module(module: str) -> None:
    tree = ast.parse((PACKING / module).read_text(encoding="utf-8"))
    imported: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{module}: relative import"
            imported.append(node.module or "")
        elif isinstance(node, ast.Import):
            imported.extend(alias.name for alias in node.names)
    fastrag_imports = [name for name in imported if name.split(".")[0] == "fastrag"]
    if module == "validator.py":
        assert "fastrag.packing.contract" in fastrag_imports
    for name in fastrag_imports:
        assert name.startswith(ALLOWED), (
            f"{module} imports {name}, which is not independent of the packer"
        )


def test_hand_built_chunks_validate_against_the_real_markdown_normalizer() -> None:
    parent = Document("doc", "hand", ORCHARD, {"content_format": "markdown"})
    normalized = NormalizerRegistry().get("markdown").normalize(parent)
    report = validate(normalized, orchard_pieces(normalized))
    assert (report.chunk_count, report.retained_characters) == (2, 65)
    with pytest.raises(ChunkingError, match="coverage"):
        validate(normalized, orchard_pieces(normalized)[1:])


# -- the remaining rules, one mutation each --------------------------------------------


def _replace(pieces: Pieces, position: int, **updates: Any) -> Pieces:
    content, metadata = pieces[position]
    content = updates.pop("content", content)
    pieces[position] = (content, {**metadata, **updates})
    return pieces


def _nothing_retained(pieces: Pieces) -> Pieces:
    return _replace(pieces, 1, retained_intervals=())


def _rendered_from_nothing(pieces: Pieces) -> Pieces:
    runs = list(pieces[1][1]["serialization_map"])
    d0, d1, s0, _, _ = runs[0]
    runs[0] = (d0, d1, s0, s0, "rendered")
    return _replace(pieces, 1, serialization_map=tuple(runs))


def _context_from_excluded_source(pieces: Pieces) -> Pieces:
    content, metadata = pieces[1]
    runs = (
        (0, 1, 46, 47, "context"),
        *((d0 + 1, d1 + 1, s0, s1, k) for d0, d1, s0, s1, k in metadata["serialization_map"]),
    )
    return _replace(pieces, 1, content="\n" + content, serialization_map=runs)


def _runs_short_of_content(pieces: Pieces) -> Pieces:
    return _replace(pieces, 1, content=pieces[1][0] + "!")


def _retained_not_shown(pieces: Pieces) -> Pieces:
    _, metadata = pieces[1]
    heading_run, separator, paragraph = metadata["serialization_map"]
    runs = (heading_run, (separator[0], paragraph[1], -1, -1, "separator"))
    return _replace(pieces, 1, serialization_map=runs)


def _overlap_out_of_order(pieces: Pieces) -> Pieces:
    return _replace(pieces, 1, overlap_intervals=((19, 25), (10, 12)))


def _overlap_on_first(pieces: Pieces) -> Pieces:
    content, metadata = pieces[0]
    runs = (
        (0, 4, 47, 51, "overlap"),
        *((d0 + 4, d1 + 4, s0, s1, k) for d0, d1, s0, s1, k in metadata["serialization_map"]),
    )
    return _replace(
        pieces, 0, content="Test" + content, serialization_map=runs, overlap_intervals=((47, 51),)
    )


def _gap_between_chunks(pieces: Pieces) -> Pieces:
    """Chunk 0 forgets its last paragraph; chunk 1 is intact."""
    content, metadata = pieces[0]
    runs = metadata["serialization_map"][:3]
    pieces = _replace(
        pieces,
        0,
        content=content[: runs[-1][1]],
        serialization_map=runs,
        retained_intervals=metadata["retained_intervals"][:2],
        char_end=18,
    )
    recount(*pieces[0])
    return pieces


def _projection_length(pieces: Pieces) -> Pieces:
    projection = pieces[0][1]["structure_metadata"]
    return _replace(pieces, 0, structure_metadata={**projection, "kinds": projection["kinds"][1:]})


MORE_MUTATIONS: dict[str, tuple[Callable[[Pieces], Pieces], str]] = {
    "nothing retained": (
        _nothing_retained,
        r"chunk 1: retained_intervals: a chunk must retain source",
    ),
    "rendered from nothing": (
        _rendered_from_nothing,
        r"chunk 1: serialization map: .* renders no source",
    ),
    "context from excluded source": (
        _context_from_excluded_source,
        r"chunk 1: serialization map: .* copied from retained source",
    ),
    "runs short of the content": (
        _runs_short_of_content,
        r"chunk 1: serialization map: runs end at display offset 31 but the content has 32",
    ),
    "retained but not shown": (
        _retained_not_shown,
        r"chunk 1: serialization map: retained source \[47, 69\) is shown by no",
    ),
    "overlap out of order": (
        _overlap_out_of_order,
        r"chunk 1: overlap_intervals: .* sorted, disjoint",
    ),
    "overlap on the first chunk": (
        _overlap_on_first,
        r"chunk 0: overlap_intervals: the first chunk has no previous chunk",
    ),
    "gap between chunks": (
        _gap_between_chunks,
        r"coverage: retained source \[19, 38\) is covered by no chunk "
        r"\(between chunk 0 and chunk 1",
    ),
    "projection lengths differ": (
        _projection_length,
        r"chunk 0: structure_metadata: 3 node_ids but 2 kinds",
    ),
}


@pytest.mark.parametrize("name", sorted(MORE_MUTATIONS))
def test_each_remaining_rule_rejects_its_mutation(orchard: NormalizedDocument, name: str) -> None:
    mutate, match = MORE_MUTATIONS[name]
    with pytest.raises(ChunkingError, match=match):
        validate(orchard, mutate(copy.deepcopy(orchard_pieces(orchard))))


class _BrokenTokenizer:
    def count(self, text: str) -> int:
        return -len(text)


def test_a_tokenizer_returning_a_negative_count_is_a_configuration_error(
    orchard: NormalizedDocument,
) -> None:
    with pytest.raises(ConfigurationError, match=r"tokenizer.count returned -\d+ for chunk 0"):
        validate_structure_chunks(orchard, orchard_pieces(orchard), _BrokenTokenizer(), 160)
