"""The validator's view of the authoritative source, and the lineage checks that use it.

``SourceIndex`` is built once per document from the normalized tree alone (never from
anything the engine produced), in one linear pass: unit starts, ends and nearest
enclosing sections as parallel lists for ``bisect`` lookups, the kind of every node, and
the units each heading owns. Lineage is then recomputed per chunk from its retained
intervals and compared with what the chunk claims: sections, heading path, displayed
headings and the node projection.

Every lookup is a bisect plus a slice of a parallel list: no per-unit objects are made
while checking chunks, which keeps validation linear and cheap next to the one
tokenization pass it cannot avoid.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import compress, islice, repeat
from operator import le, ne
from typing import Final, NamedTuple, cast

from fastrag.normalization.model import (
    Exclusions,
    NormalizedDocument,
    NormalizedNode,
    Units,
)
from fastrag.packing._validator_intervals import Interval, contains, merge
from fastrag.packing._validator_metadata import (
    KIND,
    SOURCE_END,
    SOURCE_START,
    ChunkRecord,
    excerpt,
    fail,
)
from fastrag.packing.contract import path_title

__all__ = ["SourceIndex", "check_lineage", "coalesce"]

SECTION: Final = "section"
HEADING: Final = "heading"
WHITESPACE: Final = "whitespace"  # the Exclusion reason of gaps between blocks


class HeadingChain(NamedTuple):
    """The heading path of one node: the headings, their ids and their titles."""

    headings: tuple[NormalizedNode, ...]
    ids: tuple[str, ...]
    titles: tuple[str, ...]


_NO_CHAIN: Final = HeadingChain((), (), ())


class SourceIndex:
    """Lookups over one normalized document: units by offset, sections of nodes.

    Built only from a document that passed ``NormalizedDocument.validate``, whose
    guarantees the lookups rely on: units are nonempty, in source order and disjoint (so
    their ends are sorted too), and every parent precedes its children in ``nodes``.
    """

    __slots__ = (
        "_chains",
        "_section_of",
        "_union_starts",
        "_unit_ends",
        "_unit_sections",
        "_unit_starts",
        "_whitespace_end_at",
        "_whitespace_ends_after",
        "_whitespace_starts",
        "content",
        "document_id",
        "excluded_characters",
        "heading_spans",
        "kind_of",
        "normalized",
        "retained_characters",
        "unit_union",
        "units",
    )

    def __init__(self, normalized: NormalizedDocument) -> None:
        self.normalized = normalized
        self.content = normalized.content
        self.document_id = normalized.document.id
        self.units = units = Units.of(normalized.units)
        # Parents come first, so one forward pass resolves every node's kind and nearest
        # section. Read by position (``lineage``): a columnar tree builds no node.
        lineage = normalized.lineage
        kinds, parents = lineage.kinds, lineage.parents
        ids = list(map(lineage.node_id, range(len(kinds))))
        sections: list[str | None] = []
        for node_id, kind, parent in zip(ids, kinds, parents, strict=True):
            if kind == SECTION:
                sections.append(node_id)
            else:
                sections.append(None if parent < 0 else sections[parent])
        kind_of = dict(zip(ids, kinds, strict=True))
        section_of = dict(zip(ids, sections, strict=True))
        self.kind_of = kind_of
        self._section_of = section_of
        starts = units.starts.tolist()
        ends = units.ends.tolist()
        node_ids = units.node_ids
        self._unit_starts = starts
        self._unit_ends = ends
        self._unit_sections = list(map(section_of.__getitem__, node_ids))
        self.retained_characters = sum(ends) - sum(starts)
        self._union_starts, union_ends = coalesce(starts, ends)
        self.unit_union = list(zip(self._union_starts, union_ends, strict=True))
        self.heading_spans: dict[str, list[Interval]] = {}
        is_heading = map(HEADING.__eq__, map(kind_of.__getitem__, node_ids))
        for position in compress(range(len(node_ids)), is_heading):
            self.heading_spans.setdefault(node_ids[position], []).append(
                (starts[position], ends[position])
            )
        # Exclusions, like units, are sorted and disjoint. Their columns give both the
        # excluded total (cheaper than summing ``len(span)`` method calls) and the
        # whitespace runs a verbatim run may span, kept as columns and as a dict from
        # run start to run end (see ``all_whitespace``).
        exclusions = Exclusions.of(normalized.exclusions)
        excluded_starts = list(exclusions.starts)
        excluded_ends = list(exclusions.ends)
        self.excluded_characters = sum(excluded_ends) - sum(excluded_starts)
        is_whitespace = list(map(WHITESPACE.__eq__, exclusions.reasons))
        self._whitespace_starts, whitespace_ends = coalesce(
            list(compress(excluded_starts, is_whitespace)),
            list(compress(excluded_ends, is_whitespace)),
        )
        self._whitespace_ends_after = [-1, *whitespace_ends]
        self._whitespace_end_at = dict(zip(self._whitespace_starts, whitespace_ends, strict=True))
        self._chains: dict[str, HeadingChain] = {}

    def in_units(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` is retained source (inside the union of all units)."""
        return contains(self.unit_union, self._union_starts, start, end)

    def all_whitespace(self, starts: Sequence[int], ends: Sequence[int]) -> bool:
        """Whether each ``[starts[i], ends[i])`` lies in one run of excluded whitespace.

        Checked over columns, as ``map`` passes: a Markdown chunk's single
        source run spans every gap between its blocks, so this sees one range per block.
        Gaps between blocks usually start exactly where a whitespace run starts, so a
        dict lookup settles them all at once. Otherwise, for each range, the last run
        starting at or before it must end at or after it; ``_whitespace_ends_after`` is
        shifted by one so that "no such run" (bisect position 0) reads -1 and fails.
        """
        run_ends = map(self._whitespace_end_at.get, starts, repeat(-1))
        if all(map(le, ends, run_ends)):
            return True
        runs_before = map(bisect_right, repeat(self._whitespace_starts), starts)
        return all(map(le, ends, map(self._whitespace_ends_after.__getitem__, runs_before)))

    def unit_range(self, start: int, end: int) -> tuple[int, int]:
        """Positions ``[low, high)`` in ``units`` of the units that intersect ``[start, end)``.

        Units are disjoint and sorted, so those ending after ``start`` and starting before
        ``end`` are one contiguous run, found by two bisects.
        """
        return bisect_right(self._unit_ends, start), bisect_left(self._unit_starts, end)

    def sections_between(self, start: int, end: int) -> list[str | None]:
        """Nearest sections of the units intersecting ``[start, end)``, in source order."""
        low, high = self.unit_range(start, end)
        return self._unit_sections[low:high]

    def section_of(self, node_id: str) -> str | None:
        """The nearest section enclosing ``node_id`` (itself if a section), or None."""
        return self._section_of[node_id]

    def _unit_at(self, offset: int) -> int | None:
        """Position in ``units`` of the unit holding ``offset``, or None."""
        position = bisect_right(self._unit_ends, offset)
        if position < len(self._unit_starts) and self._unit_starts[position] <= offset:
            return position
        return None

    def section_at(self, offset: int) -> str | None:
        """The nearest section of the unit holding ``offset`` (None outside sections)."""
        position = self._unit_at(offset)
        return None if position is None else self._unit_sections[position]

    def sections_in(self, intervals: Sequence[Interval]) -> tuple[str, ...]:
        """Nearest sections of the units in ``intervals``, deduplicated, in source order.

        Runs for every retained interval of every chunk. Most intervals lie in one unit
        (a block, or the part of one a split chunk keeps): one bisect and two comparisons
        settle those; the rest take the slice of units a second bisect bounds.

        ``intervals`` must be sorted (the validator checks retained intervals first).
        Before that loop, one shortcut covers most chunks, whose blocks all lie in one
        section: the units meeting the span ``[first start, last end)`` are a superset
        of those meeting the intervals, so if they all share one section and the first
        (nonempty) interval meets a unit, that section is exactly the answer.
        """
        ends, starts, sections = self._unit_ends, self._unit_starts, self._unit_sections
        count = len(starts)
        if intervals:
            first_start, first_end = intervals[0]
            low = bisect_right(ends, first_start)  # the first unit ending after it
            if first_start < first_end and low < count and starts[low] < first_end:
                span = sections[low : bisect_left(starts, intervals[-1][1])]
                only = span[0] if span else None
                if span and span.count(only) == len(span):
                    return () if only is None else (only,)
        found: list[str | None] = []
        for start, end in intervals:
            low = bisect_right(ends, start)  # the first unit ending after start
            if low < count and starts[low] < end <= ends[low]:
                found.append(sections[low])  # that unit alone meets [start, end)
            else:
                found += sections[low : bisect_left(starts, end)]
        seen = dict.fromkeys(found)
        seen.pop(None, None)  # units outside every section
        return cast("tuple[str, ...]", tuple(seen))

    def heading_chain(self, offset: int) -> HeadingChain:
        """Headings of the sections enclosing the unit at ``offset``, outermost first."""
        position = self._unit_at(offset)
        if position is None:
            return _NO_CHAIN
        # Only sections add headings to a chain, so a node's chain is its nearest
        # section's (or empty outside every section). Looking up by section, not by the
        # unit's own node, makes every chunk of a section a memo hit: chunks start at
        # different blocks, so keyed by node nearly every lookup walked the parents.
        section = self._unit_sections[position]
        return _NO_CHAIN if section is None else self._chain(section)

    def _chain(self, node_id: str) -> HeadingChain:
        """First heading child of every section among the node and its ancestors.

        Memoized per node and filled top-down without recursion (a hostile document may
        nest deeper than Python's recursion limit): chunks of one section share it.
        """
        chains = self._chains
        known = chains.get(node_id)
        if known is not None:
            return known  # the usual case: an earlier chunk of the section filled it
        normalized = self.normalized
        pending: list[NormalizedNode] = []
        current: str | None = node_id
        while current is not None and current not in chains:
            node = normalized.node(current)
            pending.append(node)
            current = node.parent_id
        headings = () if current is None else chains[current].headings
        for node in reversed(pending):
            if node.kind == SECTION:
                for child_id in node.children:
                    child = normalized.node(child_id)
                    if child.kind == HEADING:
                        headings = (*headings, child)
                        break
            chains[node.node_id] = HeadingChain(
                headings,
                tuple(heading.node_id for heading in headings),
                tuple(path_title(heading.text) for heading in headings),
            )
        return chains[node_id]


def coalesce(starts: list[int], ends: list[int]) -> tuple[list[int], list[int]]:
    """Union of sorted, disjoint intervals, as columns: join the ones that touch.

    Column-wise: one ``map`` marks each interval that does not start at its
    predecessor's end; ``compress`` reads the union's starts and ends off those marks
    (measured as fast as a plain loop, and no tuple per interval).
    """
    if not starts:
        return [], []
    opens = list(map(ne, islice(starts, 1, None), ends))  # opens[i]: i + 1 starts a run
    return (
        [starts[0], *compress(islice(starts, 1, None), opens)],
        [*compress(ends, opens), ends[-1]],
    )


def _check_known(
    record: ChunkRecord, source: SourceIndex, key: str, ids: Sequence[str], kind: str
) -> None:
    kind_of = source.kind_of
    if all(map(kind.__eq__, map(kind_of.get, ids))):
        return  # valid ids: one C-level pass; the loop below only names the fault
    for node_id in ids:
        found_kind = kind_of.get(node_id)
        if found_kind != kind:
            found = "no such node" if found_kind is None else f"a {found_kind!r} node"
            raise fail(
                record.number,
                f"lineage ({key})",
                f"{excerpt(node_id)} must name a {kind!r} node of document "
                f"{excerpt(source.document_id)} (found {found})",
            )


class _Shown:
    """The source a chunk shows in its content: retained intervals plus context runs.

    Built at most once per chunk, on the first heading that needs it.
    """

    __slots__ = ("merged", "starts")

    def __init__(self, record: ChunkRecord) -> None:
        context = [
            (run[SOURCE_START], run[SOURCE_END]) for run in record.runs if run[KIND] == "context"
        ]
        # Retained intervals are already checked sorted, disjoint and coalesced.
        self.merged = merge([*record.retained, *context]) if context else list(record.retained)
        self.starts = [start for start, _ in self.merged]

    def displays(self, source: SourceIndex, heading_id: str) -> bool:
        """Whether every unit of the heading is shown in content (retained or repeated)."""
        spans = source.heading_spans.get(heading_id)
        if not spans:
            return False
        merged, starts = self.merged, self.starts
        for start, end in spans:  # ``contains`` inlined: a few calls per chunk
            position = bisect_right(starts, start) - 1
            if position < 0 or merged[position][1] < end:
                return False
        return True


def _explain_titles(record: ChunkRecord, chain: HeadingChain) -> None:
    """Name the first title of the heading path that differs from its heading's text."""
    for position, (heading, title) in enumerate(
        zip(chain.headings, record.heading_path, strict=True)
    ):
        if title != path_title(heading.text):
            raise fail(
                record.number,
                "lineage (heading path)",
                f"heading_path[{position}] is {excerpt(title)} but heading "
                f"{excerpt(heading.node_id)} reads {excerpt(path_title(heading.text))}",
            )


def check_lineage(record: ChunkRecord, source: SourceIndex) -> None:
    """Document, sections, heading path, displayed headings and node projection."""
    if record.document_id != source.document_id:
        raise fail(
            record.number,
            "lineage (document_id)",
            f"expected {excerpt(source.document_id)} (got {excerpt(record.document_id)})",
        )
    _check_known(record, source, "section_ids", record.section_ids, SECTION)
    expected_sections = source.sections_in(record.retained)
    if record.section_ids != expected_sections:
        raise fail(
            record.number,
            "lineage (section_ids)",
            f"the retained blocks lie in {len(expected_sections)} section(s) "
            f"{excerpt(expected_sections)} but the chunk lists {len(record.section_ids)} "
            f"{excerpt(record.section_ids)}",
        )
    _check_known(record, source, "heading_ids", record.heading_ids, HEADING)
    chain = source.heading_chain(record.char_start)
    expected_ids = chain.ids
    if record.heading_ids != expected_ids:
        raise fail(
            record.number,
            "lineage (heading path)",
            f"the first retained block at offset {record.char_start} has heading ids "
            f"{excerpt(expected_ids)} (got {excerpt(record.heading_ids)})",
        )
    if record.heading_path != chain.titles:
        _explain_titles(record, chain)
    _check_known(record, source, "displayed_heading_ids", record.displayed_heading_ids, HEADING)
    shown: _Shown | None = None
    for heading_id in record.displayed_heading_ids:
        shown = shown or _Shown(record)
        if not shown.displays(source, heading_id):
            raise fail(
                record.number,
                "lineage (displayed_heading_ids)",
                f"heading {excerpt(heading_id)} is listed as displayed but its source is "
                "neither retained nor repeated as context by this chunk",
            )
    if record.embed_heading_path:
        listed = set(record.displayed_heading_ids)
        for heading_id in record.heading_ids:
            if heading_id in listed:
                continue
            shown = shown or _Shown(record)
            if shown.displays(source, heading_id):
                raise fail(
                    record.number,
                    "lineage (displayed_heading_ids)",
                    f"heading {excerpt(heading_id)} is shown in the content but not listed "
                    "as displayed, so the embedding text would repeat it",
                )
    _check_projection(record, source)


def _check_projection(record: ChunkRecord, source: SourceIndex) -> None:
    """Every projected node exists with the recorded kind (one C-level pass when valid)."""
    kind_of = source.kind_of
    if tuple(map(kind_of.get, record.node_ids)) == record.node_kinds:
        return
    for position, (node_id, kind) in enumerate(
        zip(record.node_ids, record.node_kinds, strict=True)
    ):
        found_kind = kind_of.get(node_id)
        if found_kind != kind:
            found = "no such node" if found_kind is None else f"kind {found_kind!r}"
            raise fail(
                record.number,
                "structure_metadata",
                f"node_ids[{position}] {excerpt(node_id)} is recorded as {kind!r} "
                f"({found} in the document)",
            )
