"""The validator's fast paths decide exactly what its reference paths decide.

The validator runs on every chunk of every ingest, so its hot loops take shortcuts: a
flat metadata reader that hands anything unusual to the careful one, column-wise
interval arithmetic, a sweep for coverage that hands disorder to a sort, a dict lookup
for whitespace gaps that hands misses to a bisect. Each shortcut is held here to a
plain reference (a point-set model, a per-unit scan, the careful reader) on real
documents and on generated inputs, and the cases only the slow side handles (interleaved
chunks, a run starting inside a whitespace gap, nesting deeper than Python's recursion
limit) are exercised end to end.
"""

from __future__ import annotations

import json
from collections import namedtuple
from collections.abc import Iterable
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.exceptions import ChunkingError
from fastrag.normalization import NormalizedDocument
from fastrag.packing import PackingConfig, pack
from fastrag.packing._validator_intervals import (
    Interval,
    first_difference,
    first_missing,
    gap_columns,
    merge,
    subtract,
)
from fastrag.packing._validator_lineage import SourceIndex, coalesce
from fastrag.packing._validator_metadata import _read_carefully, _read_fast
from fastrag.packing.validator import validate_structure_chunks
from tests.unit.packing._hand_chunks import (
    TOKENIZER,
    heading_tree,
    node_ids,
    piece,
    recount,
    unit_span,
)
from tests.unit.packing.test_validator_engine import normalized_of

# -- interval arithmetic against a point-set model -------------------------------------

intervals = st.lists(
    st.tuples(st.integers(0, 60), st.integers(0, 12)).map(lambda p: (p[0], p[0] + p[1])),
    max_size=8,
)


def points(ranges: Iterable[Interval]) -> set[int]:
    return {x for start, end in ranges for x in range(start, end)}


def runs_of(members: set[int]) -> list[Interval]:
    """The canonical merged form of a point set."""
    result: list[Interval] = []
    for x in sorted(members):
        if result and result[-1][1] == x:
            result[-1] = (result[-1][0], x + 1)
        else:
            result.append((x, x + 1))
    return result


@settings(max_examples=400, deadline=None)
@given(intervals, intervals, st.integers(0, 70), st.integers(0, 14))
def test_interval_helpers_match_the_point_set_model(
    first: list[Interval], second: list[Interval], start: int, width: int
) -> None:
    a, b = merge(first), merge(second)
    assert a == runs_of(points(first))
    missing, extra = runs_of(points(a) - points(b)), runs_of(points(b) - points(a))
    assert subtract(a, b) == missing
    assert first_missing(a, b) == (missing[0] if missing else None)
    assert first_difference(a, b) == (
        missing[0] if missing else None,
        extra[0] if extra else None,
    )
    end = start + width
    gap_starts, gap_ends = gap_columns([s for s, _ in b], [e for _, e in b], start, end)
    assert list(zip(gap_starts, gap_ends, strict=True)) == runs_of(
        points([(start, end)]) - points(b)
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(1, 5)), max_size=10))
def test_coalescing_columns_joins_exactly_the_touching_intervals(
    steps: list[tuple[int, int]],
) -> None:
    position, ranges = 0, []
    for gap, length in steps:
        ranges.append((position + gap, position + gap + length))
        position += gap + length
    starts, ends = coalesce([s for s, _ in ranges], [e for _, e in ranges])
    assert list(zip(starts, ends, strict=True)) == merge(ranges) == runs_of(points(ranges))


# -- source lookups against a per-unit scan --------------------------------------------


def naive_sections(normalized: NormalizedDocument, start: int, end: int) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for unit in normalized.units:
        if unit.span.start < end and start < unit.span.end:
            node = normalized.node(unit.node_id)
            chain = (*normalized.ancestors(node), node)
            sections = [n.node_id for n in chain if n.kind == "section"]
            if sections:
                found.setdefault(sections[-1], None)
    return tuple(found)


@pytest.mark.parametrize("document", ["mixed.md", "wiki_duck.html"])
def test_section_lookups_match_a_scan_of_every_unit(document: str) -> None:
    normalized = normalized_of(document)
    source = SourceIndex(normalized)
    length = len(normalized.content)
    probes = [(unit.span.start, unit.span.end) for unit in normalized.units[::7]]
    probes += [(offset, offset + 250) for offset in range(0, length, 997)]
    probes += [(offset, offset) for offset in range(0, length, 1499)]
    for start, end in probes:
        assert source.sections_in([(start, end)]) == naive_sections(normalized, start, end)
    assert source.retained_characters == normalized.retained_characters
    assert source.excluded_characters == normalized.excluded_characters


@pytest.mark.parametrize("document", ["mixed.md", "wiki.md", "wiki_duck.html"])
def test_sections_of_several_intervals_match_a_scan_of_every_unit(document: str) -> None:
    """Sorted multi-interval lookups (the single-section shortcut, and the loop when
    a span crosses sections or its first interval meets no unit) against the scan."""
    normalized = normalized_of(document)
    source = SourceIndex(normalized)
    spans = [(unit.span.start, unit.span.end) for unit in normalized.units]
    probes = [spans[i : i + width] for width in (2, 3, 9) for i in range(0, len(spans), 5)]
    probes += [[(start, start + 1), (end - 1, end)] for start, end in spans[::3]]
    probes += [
        [(spans[i][1], spans[i + 1][0] + 1), *spans[i + 1 : i + 4]]
        for i in range(0, len(spans) - 4, 4)
    ]
    gaps = [(end, start) for (_, end), (start, _) in pairwise(spans) if end < start]
    probes += [gaps[i : i + 2] for i in range(len(gaps) - 1)]  # meeting no unit at all
    shortcut = crossing = 0
    for intervals in probes:
        expected: dict[str, None] = {}
        for start, end in intervals:
            expected.update(dict.fromkeys(naive_sections(normalized, start, end)))
        assert source.sections_in(intervals) == tuple(expected)
        shortcut += len(expected) == 1
        crossing += len(expected) > 1
    assert shortcut and crossing  # both paths are exercised


def naive_heading_ids(normalized: NormalizedDocument, node_id: str) -> tuple[str, ...]:
    """The first heading child of every section among the node and its ancestors."""
    node = normalized.node(node_id)
    found: list[str] = []
    for member in (*normalized.ancestors(node), node):
        if member.kind == "section":
            children = [normalized.node(child) for child in member.children]
            found += [child.node_id for child in children if child.kind == "heading"][:1]
    return tuple(found)


@pytest.mark.parametrize("document", ["mixed.md", "wiki.md", "wiki_duck.html"])
def test_heading_chains_keyed_by_section_match_a_walk_from_every_unit(document: str) -> None:
    """``heading_chain`` memoizes by nearest section, not by the unit's node: the same
    chain a walk up from the unit's own node finds, for every unit and offset inside it."""
    normalized = normalized_of(document)
    source = SourceIndex(normalized)
    outside = 0
    for unit in normalized.units:
        expected = naive_heading_ids(normalized, unit.node_id)
        outside += not expected
        for offset in (unit.span.start, unit.span.end - 1):
            chain = source.heading_chain(offset)
            assert chain.ids == expected
            assert chain.titles == tuple(normalized.node(h).text for h in expected)
    assert outside < len(normalized.units)  # the documents do have sections
    assert source.heading_chain(len(normalized.content)).ids == ()


# -- the fast metadata reader against the careful one -----------------------------------

CONFIG = PackingConfig(
    target_tokens=200, max_tokens=300, min_preferred_tokens=40, overlap_tokens=30
)


def engine_metadata(document: str) -> list[tuple[str, dict[str, Any]]]:
    produced = pack(normalized_of(document), TOKENIZER, CONFIG)
    return [
        (content, {k: dict(v) if k == "structure_metadata" else v for k, v in meta.items()})
        for content, meta in produced
    ]


Pair = namedtuple("Pair", "start end")


class Text(str):
    """A str subclass: the careful reader accepts it where it accepts str."""


VARIANTS: list[Any] = [
    None,
    True,
    1,
    -1,
    1.0,
    "x",
    Text("x"),
    (),
    [],
    ((0, 1),),
    [[0, 1]],
    (Pair(0, 1),),
    ((0, True),),
    ((0, 1, 2, 3, "source"),),
    ((0, 1, 2, 3, Text("source")),),
    ((0, 1, "heading"),),
    ("a", Text("b")),
    {"node_ids": (), "kinds": ()},
    {"node_ids": ["x"], "kinds": ("heading",)},
    {(0, 1): 2},
]


def outcome(index: int, content: str, metadata: dict[str, Any]) -> Any:
    try:
        return _read_carefully(index, content, metadata)
    except ChunkingError:
        return ChunkingError


@pytest.mark.parametrize("document", ["mixed.md", "wiki_duck.html"])
def test_the_fast_reader_agrees_with_the_careful_reader(document: str) -> None:
    pieces = engine_metadata(document)
    persisted = json.loads(json.dumps(pieces))
    for index, (content, metadata) in enumerate([*pieces[:20], *map(tuple, persisted[:20])]):
        fast = _read_fast(index, content, metadata)
        assert fast is not None  # well-formed engine output takes the fast path
        assert fast == _read_carefully(index, content, metadata)
    content, metadata = pieces[len(pieces) // 2]
    for key in [*metadata, "missing"]:
        for variant in VARIANTS:
            mutated = {**metadata, key: variant}
            fast = _read_fast(3, content, mutated)
            careful = outcome(3, content, mutated)
            # The fast reader accepts a subset and builds the same record; everything
            # else is left to the careful reader, which accepts it or names the fault.
            assert fast is None or fast == careful, (key, variant)
        del_metadata = {k: v for k, v in metadata.items() if k != key}
        assert _read_fast(3, content, del_metadata) is None or key == "missing"


# -- cases only the general paths handle, end to end ------------------------------------

THREE = "# A\nOne.\n\nTwo.\n\nThree.\n"


def interleaved(normalized: NormalizedDocument, second_extra: bool) -> list[Any]:
    (section,) = node_ids(normalized, "section")
    (heading,) = node_ids(normalized, "heading")
    one, two, three = (unit_span(normalized, p) for p in node_ids(normalized, "paragraph"))
    lineage: dict[str, Any] = {"section_ids": [section], "heading_ids": [heading]}
    first = piece(
        normalized,
        [unit_span(normalized, heading), one, three],
        displayed=[heading],
        chunk_kind="split",
        **lineage,
    )
    second = piece(normalized, [two, three] if second_extra else [two], **lineage)
    return [first, second]


def test_interleaved_chunks_are_valid_and_a_double_claim_is_not() -> None:
    """Chunk 0 keeps paragraphs one and three, chunk 1 paragraph two: a partition."""
    normalized = heading_tree(THREE)
    report = validate_structure_chunks(normalized, interleaved(normalized, False), TOKENIZER, 160)
    assert (report.chunk_count, report.retained_characters) == (2, 3 + 4 + 4 + 6)
    with pytest.raises(ChunkingError, match=r"chunk 1: coverage: source \[\d+, \d+\) is retained"):
        validate_structure_chunks(normalized, interleaved(normalized, True), TOKENIZER, 160)


def one_run(
    normalized: NormalizedDocument, show: Interval, retained: list[Interval], displayed: bool
) -> tuple[str, dict[str, Any]]:
    """A chunk of ``retained`` shown by a single verbatim run over ``show``."""
    (section,) = node_ids(normalized, "section")
    (heading,) = node_ids(normalized, "heading")
    content, metadata = piece(
        normalized,
        retained,
        section_ids=[section],
        heading_ids=[heading],
        displayed=[heading] if displayed else [],
    )
    content = normalized.content[show[0] : show[1]]
    metadata["serialization_map"] = ((0, len(content), show[0], show[1], "source"),)
    return content, recount(content, metadata)


def test_a_run_may_start_inside_excluded_whitespace_but_not_in_another_unit() -> None:
    normalized = heading_tree("# A\n\n\nOne.\n")
    (heading,) = node_ids(normalized, "heading")
    (paragraph,) = node_ids(normalized, "paragraph")
    title, body = unit_span(normalized, heading), unit_span(normalized, paragraph)
    assert (title, body) == ((0, 3), (6, 10))  # whitespace [3, 6) between them
    # One run over both blocks: its gap starts where the whitespace run starts.
    whole = one_run(normalized, (0, 10), [title, body], displayed=True)
    assert validate_structure_chunks(normalized, [whole], TOKENIZER, 160).chunk_count == 1
    # Heading and body apart; the body's run starts inside the whitespace run.
    first = one_run(normalized, title, [title], displayed=True)
    second = one_run(normalized, (4, 10), [body], displayed=False)
    assert validate_structure_chunks(normalized, [first, second], TOKENIZER, 160).chunk_count == 2
    # A run reaching back into the heading shows source chunk 0 owns.
    into_heading = one_run(normalized, (1, 10), [body], displayed=False)
    with pytest.raises(ChunkingError, match=r"chunk 1: serialization map: .* shows source outside"):
        validate_structure_chunks(normalized, [first, into_heading], TOKENIZER, 160)


def test_nesting_deeper_than_the_recursion_limit_validates() -> None:
    depth = 1100
    text = "".join("#" * level + " H\n" for level in range(1, depth + 1)) + "Body.\n"
    normalized = heading_tree(text)
    sections, headings = node_ids(normalized, "section"), node_ids(normalized, "heading")
    retained = [(unit.span.start, unit.span.end) for unit in normalized.units]
    chunk = piece(
        normalized,
        retained,
        section_ids=sections,
        heading_ids=headings[:1],
        displayed=headings,
    )
    report = validate_structure_chunks(normalized, [chunk], TOKENIZER, 10**7)
    assert report.chunk_count == 1
