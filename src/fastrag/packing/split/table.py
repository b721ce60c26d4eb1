"""Tables: cut between rows, repeating the header rows as ``table_header`` context.

Rows are the units' nearest ``table_row`` nodes; header rows are the leading rows whose
``header`` attribute is true (for Markdown the header unit also holds the delimiter row,
so the repeated context is the table's schema exactly as written). The first piece keeps
the header with at least one body row: a chunk of only the header would be repeated by
the next one. A header of empty cells names no column and is not repeated. A row is
indivisible: cutting inside one (between cells, words, characters) happens only under
``split_with_context`` and records atomic-structure loss.
"""

from __future__ import annotations

import re

from fastrag.normalization.model import Nodes
from fastrag.packing.blocks import Strength
from fastrag.packing.config import PackingConfig
from fastrag.packing.split._site import ContextRange, CutSite

__all__ = ["TableSplitter"]

_SCHEMA_FREE = re.compile(r"[\s|:+=\-]*")
"""Header text that names nothing: cell borders, delimiter rows and blanks only."""


class TableSplitter:
    """Row splitting of one table block with its header repeated."""

    __slots__ = ("_first_body_end", "_header_end", "_levels", "_row_of_slot", "site")

    atomic_floor: int = Strength.ROW

    def __init__(self, site: CutSite, config: PackingConfig) -> None:
        self.site = site
        rows = [self._row(owner) for _, _, owner in site.block.slots]
        self._row_of_slot = rows
        slots = site.block.slots
        header_slots = 0
        while header_slots < len(slots) and self._is_header(rows[header_slots]):
            header_slots += 1
        if header_slots == len(slots):  # a table of only header rows has nothing to repeat
            header_slots = 0
        elif header_slots and _SCHEMA_FREE.fullmatch(site.text, 0, slots[header_slots - 1][1]):
            # A header of empty cells (GFM needs a header row: a PDF table without one,
            # ``| | |`` over ``|---|---|``) names no column: repeating it in every
            # piece costs tokens and says nothing. Its rows stay where they are.
            header_slots = 0
        self._header_end = 0
        if header_slots:
            # Up to the line break before the first body row: an HTML table's header
            # line ends with a cell border and its delimiter row, which are display only.
            self._header_end = self._row_cut(header_slots)
            if self._header_end > slots[header_slots - 1][1]:
                self._header_end -= 1  # the line break itself joins the context
        body_row = rows[header_slots] if header_slots < len(rows) else None
        last_body_slot = header_slots
        while last_body_slot + 1 < len(rows) and rows[last_body_slot + 1] == body_row:
            last_body_slot += 1
        self._first_body_end = slots[last_body_slot][1] if header_slots else 0
        multi_slot_rows = len(set(rows)) < len(rows)
        cells = (Strength.UNIT,) if multi_slot_rows else ()
        finer = () if config.flag_overflow else (Strength.WORD, Strength.CHARACTER)
        self._levels: tuple[int, ...] = (Strength.ROW, *cells, *finer)

    def _row_cut(self, index: int) -> int:
        """Where a piece starting with slot ``index`` begins, when a new row starts there.

        At the end of the previous slot (the gap travels with the next piece and is
        trimmed there) when the gap is whitespace, as between Markdown rows; at the start
        of the new row's line when the gap shows more — an HTML table's cell borders
        (`` |``, line break, ``| ``), which would otherwise open the next piece with the
        previous row's closing border and end this one without it.
        """
        text, slots = self.site.text, self.site.block.slots
        end, start = slots[index - 1][1], slots[index][0]
        if start <= end or text[end:start].isspace():
            return end
        line = text.rfind("\n", end, start)
        return line + 1 if line >= 0 else end

    def _row_cuts(self, start: int, end: int) -> list[int]:
        """Row cuts strictly inside ``(start, end)``, in order."""
        rows = self._row_of_slot
        cuts: list[int] = []
        for index, _ in self.site.slot_starts(start, end):
            if rows[index] != rows[index - 1]:
                cut = self._row_cut(index)
                if start < cut < end:
                    cuts.append(cut)
        return cuts

    def _row(self, owner_id: str) -> str:
        normalized = self.site.normalized
        lineage = normalized.lineage
        kinds, parents = lineage.kinds, lineage.parents
        block = self.site.position(self.site.block.node_id)
        position = start = self.site.position(owner_id)
        while kinds[position] != "table_row" and position != block:
            parent = parents[position]
            if parent < 0:
                break
            position = parent
        return owner_id if position == start else lineage.node_id(position)

    def _is_header(self, row_id: str) -> bool:
        normalized = self.site.normalized
        nodes = normalized.nodes
        if isinstance(nodes, Nodes):  # read off the columns: no node built per row
            position = nodes.position(row_id)
            if position is None:
                raise KeyError(row_id)
            kind, attributes = nodes.kinds[position], nodes.attributes(position)
        else:
            node = normalized.node(row_id)
            kind, attributes = node.kind, node.attributes
        return kind == "table_row" and bool(attributes.get("header", False))

    @property
    def mandatory_context(self) -> bool:
        return self._header_end > 0

    def levels(self) -> tuple[int, ...]:
        return self._levels

    def cut_bounds(self) -> tuple[int, int]:
        """Cuts fall after the header (and after the first body row when one exists)."""
        return (self._header_end, len(self.site.text))

    def candidates(self, start: int, end: int, level: int) -> list[tuple[int, int]]:
        rows = self._row_of_slot
        if level == Strength.ROW:
            low = max(start, self._first_body_end - 1)
            return [(cut, cut) for cut in self._row_cuts(start, end) if cut > low]
        if level == Strength.UNIT:
            return [
                (cut, cut)
                for index, cut in self.site.slot_starts(start, end)
                if rows[index] == rows[index - 1] and cut > self._header_end
            ]
        return []

    def leaf_cuts(self) -> list[int]:
        return self._row_cuts(0, len(self.site.text))

    def leading_context(self, start: int) -> tuple[ContextRange, ...]:
        if self._header_end and start >= self._header_end:
            return (ContextRange(0, self._header_end, "table_header", True),)
        return ()

    def trailing_context(self, end: int) -> tuple[ContextRange, ...]:
        return ()
