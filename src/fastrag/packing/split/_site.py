"""Where one block may be cut: the shared ground every splitter stands on.

Cuts *between* units (rows, items, the paragraphs of a block quote) fall in the excluded
gap after a unit and need nothing from the tokenizer. Cuts *inside* a unit (sentences,
lines, words, characters) must land on an offset the tokenizer's ``boundaries`` allows
and inside verbatim source: never inside a code point, never inside a rendered run such
as a decoded HTML entity. ``CutSite.snap`` picks such an offset in a candidate range (the
whitespace between two sentences, say), preferring the largest, so whitespace trails the
piece it ends. The tokenizer's boundaries are computed once per block, and only for
blocks that are actually cut inside a unit.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from fastrag.normalization.model import NormalizedDocument
from fastrag.packing.blocks import Strength
from fastrag.packing.lead_in import LEAD_IN_KINDS, introduces
from fastrag.packing.leaves import RETAINED, Block, RunKind

__all__ = [
    "WHITESPACE",
    "ContextRange",
    "CutSite",
    "inside_unit_levels",
    "ranges_of",
]

WHITESPACE: Final = re.compile(r"\s+")
_VISIBLE: Final = re.compile(r"\S")
_VERBATIM: Final = (RunKind.SOURCE, RunKind.GAP)
_MARGIN: Final = 32
"""Characters of context on each side when asking the tokenizer for boundaries."""


@dataclass(frozen=True, slots=True)
class ContextRange:
    """A display range of the block repeated before (or after) a chunk that cuts it.

    ``kind`` is a contract context kind (``table_header``, ``list_parent``,
    ``code_fence``); ``mandatory`` context must fit (the table header, a code fence) or
    the policy decides; optional context (list parents) is dropped when it does not.
    """

    start: int
    end: int
    kind: str
    mandatory: bool


class CutSite:
    """One block with lazily computed tokenizer boundaries and verbatim-run checks."""

    __slots__ = (
        "_boundaries",
        "_lead_ins",
        "_opaque",
        "_opaque_starts",
        "_positions",
        "_retained",
        "_retained_starts",
        "_visible",
        "block",
        "normalized",
    )

    def __init__(
        self,
        block: Block,
        normalized: NormalizedDocument,
        boundaries: Callable[[str], Sequence[int]],
        positions: Mapping[str, int] | None = None,
    ) -> None:
        self.block = block
        self.normalized = normalized
        self._boundaries = boundaries
        self._positions: Mapping[str, int] = {} if positions is None else positions
        """Known positions of node ids (``Layout.positions``), read before the tree."""
        # Display ranges that are not verbatim source: no cut strictly inside them.
        verbatim, retained = _VERBATIM, RETAINED  # locals: one test per run of the block
        self._opaque: tuple[tuple[int, int], ...] = tuple(
            (run[0], run[1]) for run in block.runs if run[4] not in verbatim and run[1] - run[0] > 1
        )
        self._opaque_starts = [start for start, _ in self._opaque]
        self._retained = [(run[0], run[1]) for run in block.runs if run[4] in retained]
        self._retained_starts = [start for start, _ in self._retained]
        self._lead_ins: frozenset[int] | None = None
        self._visible = (0, -1)
        """The last ``_visible_from`` query and its answer."""

    @property
    def text(self) -> str:
        return self.block.text

    def position(self, node_id: str) -> int:
        """The position of node ``node_id`` (a unit's owner) in the tree."""
        found = self._positions.get(node_id)
        return self.normalized.node_index[node_id] if found is None else found

    def shows_text(self, start: int, end: int) -> bool:
        """Whether display ``[start, end)`` shows some non-whitespace retained source."""
        position = max(bisect_right(self._retained_starts, start) - 1, 0)
        while position < len(self._retained):
            low, high = self._retained[position]
            if low >= end:
                return False
            if high > start and self._visible_from(max(low, start)) < min(high, end):
                return True
            position += 1
        return False

    def _visible_from(self, offset: int) -> int:
        """The first display offset at or after ``offset`` that is not whitespace.

        Callers ask about ranges that grow from one start (the next cut after a piece's
        start), so the last answer is kept: over a long run of whitespace (a code block
        of blank lines) each question would otherwise rescan the run (quadratic).
        """
        asked, found = self._visible
        if asked <= offset <= found:
            return found
        text = self.block.text
        match = _VISIBLE.search(text, offset)
        found = len(text) if match is None else match.start()
        self._visible = (offset, found)
        return found

    def _opaque_at(self, offset: int) -> bool:
        position = bisect_left(self._opaque_starts, offset) - 1
        return position >= 0 and self._opaque[position][1] > offset

    def _window(self, low: int, high: int) -> tuple[int, list[int]]:
        """The tokenizer's boundaries of a window around ``[low, high]``, as block offsets.

        A window's own ends are boundaries of the window only; they are kept just where
        the window ends with the block. Cutting is local to the pre-tokenizer's pieces,
        so a margin on each side is enough to judge offsets inside.
        """
        text = self.block.text
        start, end = max(low - _MARGIN, 0), min(high + _MARGIN, len(text))
        offsets = [start + offset for offset in self._boundaries(text[start:end])]
        return start, [
            offset
            for offset in offsets
            if (offset > start or start == 0) and (offset < end or end == len(text))
        ]

    def snap(self, low: int, high: int) -> int | None:
        """The largest allowed offset in ``[low, high]`` that is not inside a rendered run."""
        if high < low:
            return None
        _, offsets = self._window(low, high)
        for offset in reversed(offsets):
            if offset > high:
                continue
            if offset < low:
                break
            if not self._opaque or not self._opaque_at(offset):
                return offset
        return None

    def next_boundary(self, offset: int, limit: int) -> int | None:
        """The smallest allowed offset in ``(offset, limit)``, searched window by window."""
        low = offset + 1
        while low < limit:
            high = min(low + 4 * _MARGIN, limit - 1)
            _, offsets = self._window(low, high)
            for candidate in offsets:
                if low <= candidate <= high and (
                    not self._opaque or not self._opaque_at(candidate)
                ):
                    return candidate
            low = high + 1
        return None

    def slot_index(self, offset: int) -> int:
        """Index of the unit slot that holds (or follows) display ``offset``."""
        slots = self.block.slots
        low, high = 0, len(slots)
        while low < high:
            middle = (low + high) // 2
            if slots[middle][1] <= offset:
                low = middle + 1
            else:
                high = middle
        return min(low, len(slots) - 1)

    def shown_slot(self, start: int) -> int:
        """Index of the slot whose unit a chunk starting at ``start`` shows first: a cut
        lies at the end of the previous slot, so a chunk starting there shows the next."""
        slots = self.block.slots
        slot = self.slot_index(start)
        if slots[slot][1] <= start and slot + 1 < len(slots):
            slot += 1
        return slot

    def parent_label(self, start: int, end: int) -> ContextRange | None:
        """The first line of display ``[start, end)`` as optional ``list_parent`` context
        (a list item's or a definition's label), None when that line is blank."""
        text = self.text
        line_end = text.find("\n", start, end)
        label = text[start : end if line_end < 0 else line_end].rstrip()
        return ContextRange(start, start + len(label), "list_parent", False) if label else None

    def slot_starts(self, start: int, end: int) -> Iterator[tuple[int, int]]:
        """``(slot index, cut offset)`` for each unit slot beginning inside ``(start, end)``.

        The cut lies at the end of the previous slot, so the gap between them travels
        with the piece it precedes (and is trimmed when that piece starts a chunk) —
        unless the gap shows text before a line break, as the cell borders between the
        rows of an HTML table read inside Markdown do (`` |``, line break, ``| ``): then
        the cut lies after that line break, so the row before keeps its closing border
        and the next piece starts on its own line.
        """
        slots, text = self.block.slots, self.block.text
        for index in range(max(1, self.slot_index(start)), len(slots)):
            cut = slots[index - 1][1]
            if cut >= end:
                break
            following = slots[index][0]
            if following > cut + 1:
                line = text.rfind("\n", cut, following)
                if line > cut and _VISIBLE.search(text, cut, line):
                    cut = line + 1
            if start < cut < end:
                yield index, cut

    def after_lead_in(self, offset: int) -> bool:
        """Whether ``offset``, a cut between two units, would end a chunk on a lead-in.

        Inside one block as between blocks (``lead_in.py``): a short paragraph ending
        with ":" (or a label, or a pseudo-heading) and the sibling it introduces —
        "Roughly equivalent to::" and its code inside one ``.. function::`` directive,
        "For example:" and its sample inside a list item. The refiner gives such a cut
        the strength ``NEVER``: a chunk ends there only if nothing else fits.
        """
        cuts = self._lead_ins
        if cuts is None:
            cuts = self._lead_ins = self._lead_in_cuts()
        return offset in cuts

    def _lead_in_cuts(self) -> frozenset[int]:
        slots, normalized = self.block.slots, self.normalized
        position, lineage = self.position, normalized.lineage
        kinds, parents = lineage.kinds, lineage.parents
        found: set[int] = set()
        for index in range(1, len(slots)):
            before, after = slots[index - 1][2], slots[index][2]
            if before == after:
                continue
            lead = position(before)
            if kinds[lead] not in LEAD_IN_KINDS:
                continue
            # What follows, as a sibling of the lead-in: the code block itself, the list
            # whose first item's text comes next. None when the lead-in ends its container.
            lead_parent = parents[lead]
            sibling = position(after)
            while (up := parents[sibling]) >= 0 and up != lead_parent:
                sibling = up
            if parents[sibling] == lead_parent and introduces(lineage.text(lead), kinds[sibling]):
                found.add(slots[index - 1][1])
        return frozenset(found)

    def follows_syntax(self, index: int) -> bool:
        """Whether slot ``index`` is content that a container's own syntax just opened.

        A container (a loose list item, a block quote, a directive) owns only its syntax
        — ``*``, ``>``, ``.. note::`` — and its content lives in children. A cut between
        the two leaves the bare marker at the end of a chunk (``…two kinds of
        argument:`` and then a lone ``*``), or alone in one; the marker belongs with
        what it opens.
        """
        slots, normalized = self.block.slots, self.normalized
        position, lineage = self.position, normalized.lineage
        container = position(slots[index - 1][2])
        if not lineage.children(container):
            return False
        parents = lineage.parents
        current = parents[position(slots[index][2])]
        while current >= 0:
            if current == container:
                return True
            current = parents[current]
        return False


def ranges_of(
    pattern: re.Pattern[str], text: str, start: int, end: int, *, group: int = 0
) -> list[tuple[int, int]]:
    """``(low, high)`` of each match's ``group`` strictly inside ``(start, end)``."""
    found: list[tuple[int, int]] = []
    for match in pattern.finditer(text, start, min(end + _MARGIN, len(text))):
        low, high = match.start(group), match.end(group)
        if low >= end:
            break
        if high > start and low < end:
            found.append((max(low, start + 1), min(high, end - 1)))
    return [(low, high) for low, high in found if low <= high]


def inside_unit_levels(sentences: bool) -> tuple[int, ...]:
    """The prose levels below the unit level, strongest first."""
    if sentences:
        return (Strength.SENTENCE, Strength.LINE, Strength.WORD, Strength.CHARACTER)
    return (Strength.WORD, Strength.CHARACTER)
