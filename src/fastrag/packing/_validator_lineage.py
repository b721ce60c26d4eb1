"""The validator's view of the authoritative source, and the lineage checks that use it.

``SourceIndex`` is built once per document from the normalized tree alone (never from
anything the engine produced): units sorted by offset for ``bisect`` lookups, the nearest
enclosing section of every node (memoized), and the units each node owns. Lineage is
then recomputed per chunk from its retained intervals and compared with what the chunk
claims: sections, heading path, displayed headings and the node projection.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import Final

from fastrag.normalization.model import CoverageUnit, NormalizedDocument, NormalizedNode
from fastrag.packing._validator_intervals import Interval, contains, merge
from fastrag.packing._validator_metadata import ChunkRecord, excerpt, fail

__all__ = ["SourceIndex", "check_lineage"]

SECTION: Final = "section"
HEADING: Final = "heading"
WHITESPACE: Final = "whitespace"  # the Exclusion reason of gaps between blocks


class SourceIndex:
    """Lookups over one normalized document: units by offset, sections of nodes."""

    __slots__ = (
        "_section_of",
        "_union_starts",
        "_unit_starts",
        "_whitespace",
        "_whitespace_starts",
        "content",
        "document_id",
        "normalized",
        "unit_union",
        "units",
        "units_by_node",
    )

    def __init__(self, normalized: NormalizedDocument) -> None:
        self.normalized = normalized
        self.content = normalized.content
        self.document_id = normalized.document.id
        self.units: tuple[CoverageUnit, ...] = normalized.units
        self._unit_starts = [unit.span.start for unit in self.units]
        self.unit_union = merge((unit.span.start, unit.span.end) for unit in self.units)
        self._union_starts = [start for start, _ in self.unit_union]
        self.units_by_node: dict[str, list[Interval]] = {}
        for unit in self.units:
            self.units_by_node.setdefault(unit.node_id, []).append((unit.span.start, unit.span.end))
        self._section_of: dict[str, str | None] = {}
        self._whitespace = merge(
            (exclusion.span.start, exclusion.span.end)
            for exclusion in normalized.exclusions
            if exclusion.reason == WHITESPACE
        )
        self._whitespace_starts = [start for start, _ in self._whitespace]

    def in_units(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` is retained source (inside the union of all units)."""
        return contains(self.unit_union, self._union_starts, start, end)

    def in_whitespace(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` lies in one run of excluded whitespace."""
        return contains(self._whitespace, self._whitespace_starts, start, end)

    def units_in(self, start: int, end: int) -> Iterator[CoverageUnit]:
        """Units that intersect ``[start, end)``, in source order."""
        position = max(bisect_right(self._unit_starts, start) - 1, 0)
        while position < len(self.units) and self.units[position].span.start < end:
            unit = self.units[position]
            if unit.span.end > start:
                yield unit
            position += 1

    def node(self, node_id: str) -> NormalizedNode | None:
        return self.normalized.node(node_id) if node_id in self.normalized else None

    def section_of(self, node_id: str) -> str | None:
        """The nearest section enclosing ``node_id`` (itself if a section), or None."""
        if node_id in self._section_of:
            return self._section_of[node_id]
        node = self.normalized.node(node_id)
        if node.kind == SECTION:
            found: str | None = node.node_id
        elif node.parent_id is None:
            found = None
        else:
            found = self.section_of(node.parent_id)
        self._section_of[node_id] = found
        return found

    def section_at(self, offset: int) -> str | None:
        """The nearest section of the unit holding ``offset`` (None outside sections)."""
        for unit in self.units_in(offset, offset + 1):
            return self.section_of(unit.node_id)
        return None

    def sections_in(self, intervals: Sequence[Interval]) -> tuple[str, ...]:
        """Nearest sections of the units in ``intervals``, deduplicated, in source order."""
        seen: dict[str, None] = {}
        for start, end in intervals:
            for unit in self.units_in(start, end):
                section = self.section_of(unit.node_id)
                if section is not None:
                    seen.setdefault(section, None)
        return tuple(seen)

    def heading_chain(self, offset: int) -> tuple[NormalizedNode, ...]:
        """Headings of the sections enclosing the unit at ``offset``, outermost first."""
        units = list(self.units_in(offset, offset + 1))
        if not units:
            return ()
        node = self.normalized.node(units[0].node_id)
        chain = (*self.normalized.ancestors(node), node)
        headings = []
        for section in chain:
            if section.kind != SECTION:
                continue
            for child_id in section.children:
                child = self.normalized.node(child_id)
                if child.kind == HEADING:
                    headings.append(child)
                    break
        return tuple(headings)


def _check_known(
    record: ChunkRecord, source: SourceIndex, key: str, ids: Sequence[str], kind: str
) -> None:
    for node_id in ids:
        node = source.node(node_id)
        if node is None or node.kind != kind:
            found = "no such node" if node is None else f"a {node.kind!r} node"
            raise fail(
                record.index,
                f"lineage ({key})",
                f"{excerpt(node_id)} must name a {kind!r} node of document "
                f"{excerpt(source.document_id)} (found {found})",
            )


def _displayed(record: ChunkRecord, source: SourceIndex, heading_id: str) -> bool:
    """Whether every unit of the heading is shown in content (retained or repeated)."""
    shown = merge(
        [*record.retained]
        + [(run.source_start, run.source_end) for run in record.runs if run.kind == "context"]
    )
    starts = [start for start, _ in shown]
    spans = source.units_by_node.get(heading_id, [])
    return bool(spans) and all(contains(shown, starts, start, end) for start, end in spans)


def check_lineage(record: ChunkRecord, source: SourceIndex) -> None:
    """Document, sections, heading path, displayed headings and node projection."""
    if record.document_id != source.document_id:
        raise fail(
            record.index,
            "lineage (document_id)",
            f"expected {excerpt(source.document_id)} (got {excerpt(record.document_id)})",
        )
    _check_known(record, source, "section_ids", record.section_ids, SECTION)
    expected_sections = source.sections_in(record.retained)
    if record.section_ids != expected_sections:
        raise fail(
            record.index,
            "lineage (section_ids)",
            f"the retained blocks lie in {len(expected_sections)} section(s) "
            f"{excerpt(expected_sections)} but the chunk lists {len(record.section_ids)} "
            f"{excerpt(record.section_ids)}",
        )
    _check_known(record, source, "heading_ids", record.heading_ids, HEADING)
    chain = source.heading_chain(record.char_start)
    expected_ids = tuple(heading.node_id for heading in chain)
    if record.heading_ids != expected_ids:
        raise fail(
            record.index,
            "lineage (heading path)",
            f"the first retained block at offset {record.char_start} has heading ids "
            f"{excerpt(expected_ids)} (got {excerpt(record.heading_ids)})",
        )
    for position, (heading, title) in enumerate(zip(chain, record.heading_path, strict=True)):
        if title != heading.text:
            raise fail(
                record.index,
                "lineage (heading path)",
                f"heading_path[{position}] is {excerpt(title)} but heading "
                f"{excerpt(heading.node_id)} reads {excerpt(heading.text)}",
            )
    _check_known(record, source, "displayed_heading_ids", record.displayed_heading_ids, HEADING)
    for heading_id in record.displayed_heading_ids:
        if not _displayed(record, source, heading_id):
            raise fail(
                record.index,
                "lineage (displayed_heading_ids)",
                f"heading {excerpt(heading_id)} is listed as displayed but its source is "
                "neither retained nor repeated as context by this chunk",
            )
    if record.embed_heading_path:
        listed = set(record.displayed_heading_ids)
        for heading_id in record.heading_ids:
            if heading_id not in listed and _displayed(record, source, heading_id):
                raise fail(
                    record.index,
                    "lineage (displayed_heading_ids)",
                    f"heading {excerpt(heading_id)} is shown in the content but not listed "
                    "as displayed, so the embedding text would repeat it",
                )
    for position, (node_id, kind) in enumerate(
        zip(record.node_ids, record.node_kinds, strict=True)
    ):
        node = source.node(node_id)
        if node is None or node.kind != kind:
            found = "no such node" if node is None else f"kind {node.kind!r}"
            raise fail(
                record.index,
                "structure_metadata",
                f"node_ids[{position}] {excerpt(node_id)} is recorded as {kind!r} "
                f"({found} in the document)",
            )
