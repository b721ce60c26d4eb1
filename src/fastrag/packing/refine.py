"""Atoms, and refining an oversized atom into smaller ones, level by level.

An *atom* is the packer's indivisible unit at the moment: a whole block, or a display
range of one produced by cutting it. Refining descends the block splitter's levels.

Between units (rows, list items, the paragraphs of a block quote) every cut is listed
and the pieces are counted exactly — usually for free, as sums of the leaves the block
was counted by. Inside a unit (sentences, lines, definitions, words, characters) nothing
is listed: one walk over the atom spreads its count over its characters to see how far
a run may reach, takes the strongest cut in the second half of that reach, and snaps it
to a tokenizer boundary found in a small window around it. So an oversized paragraph of
any size costs a single pass, and the estimates are checked by the exact count of each
final chunk. An atom that no level can cut is returned flagged ``oversize``; the
overflow policy decides its fate.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import ceil
from typing import Final, NamedTuple

from fastrag.packing.blocks import Strength
from fastrag.packing.costs import Costs
from fastrag.packing.split import BlockSplitter, CutSite
from fastrag.packing.split._site import WHITESPACE, ranges_of

__all__ = ["Atom", "Budget", "Refiner", "whole_atom"]

_INSIDE: Final = int(Strength.UNIT)
"""Level of pieces cut inside a unit: a repair may cut them again at any inner level."""
_ATTEMPTS: Final = 8
"""Candidates tried per level and window before a weaker level is asked."""


class Atom(NamedTuple):
    """A display range ``[start, end)`` of one block with its estimated cost.

    A named tuple (immutable, several times cheaper to build than a frozen dataclass):
    every block of a document becomes at least one atom.
    """

    block: int
    start: int
    end: int
    cost: int
    strength: int
    """Strength of the boundary before this atom."""
    level: int
    """The level whose cut produced this atom (``Strength.BLOCK`` for a whole block)."""
    loss: bool = False
    """Produced by cutting inside an indivisible unit (a table row, a code line)."""
    oversize: bool = False
    """No level can cut it further although it exceeds the budget it was refined for."""


@dataclass(frozen=True, slots=True)
class Budget:
    """Room for a piece's own text: ``fixed``, or what its chunk leaves it.

    By default a piece may use the maximum minus what a chunk starting (and ending) with
    it pays — heading-path prefix, repeated context, overlap reserve — so the first
    piece of a table, which shows the header itself, gets more room than the others.
    ``extra`` is reserved on top (the headings a first piece must travel with).
    """

    fixed: int | None = None
    extra: int = 0


_OWN: Final = Budget()


def new_atom(
    block: int,
    start: int,
    end: int,
    cost: int,
    strength: int,
    level: int,
    loss: bool = False,
    oversize: bool = False,
) -> Atom:
    """``Atom(...)`` by ``tuple.__new__``: the ``__new__`` a named tuple is given is
    interpreted code (a lambda ``collections.namedtuple`` generates), about three times
    the cost of this call from compiled code, and atoms are built by the hundred
    thousand."""
    return tuple.__new__(Atom, (block, start, end, cost, strength, level, loss, oversize))


def whole_atom(costs: Costs, block: int, strength: int) -> Atom:
    """The atom of an entire block."""
    text = costs.layout.blocks[block].text
    return new_atom(block, 0, len(text), costs.block[block], strength, Strength.BLOCK)


def _viable_cuts(site: CutSite, start: int, end: int, cuts: list[int]) -> list[int]:
    """Drop cuts that would leave a piece with no visible retained text.

    Such a piece (blank lines, or only a bullet the display adds) would make a chunk that
    retains nothing or vanishes as whitespace; it stays with its neighbour instead.
    """
    kept: list[int] = []
    previous = start
    for cut in cuts:
        if site.shows_text(previous, cut):
            kept.append(cut)
            previous = cut
    if kept and not site.shows_text(kept[-1], end):
        kept.pop()
    return kept


class Refiner:
    """Cuts oversized atoms of one document; shares the document's ``Costs``."""

    __slots__ = ("costs",)

    def __init__(self, costs: Costs) -> None:
        self.costs = costs

    def refine(self, atom: Atom, budget: Budget = _OWN) -> list[Atom]:
        """Atoms tiling ``atom``, each within its budget where some level allows it.

        Returns ``[atom]`` flagged ``oversize`` when no level cuts it at all.
        """
        splitter = self.costs.splitter(atom.block)
        site = self.costs.site(atom.block)
        low, high = splitter.cut_bounds()
        start, end = max(atom.start, low), min(atom.end, high)
        levels = [level for level in splitter.levels() if level < atom.level]
        for position, level in enumerate(levels):
            if level < Strength.UNIT:
                return self._stream(atom, levels[position:], budget)
            cuts = [cut for cut, _ in splitter.candidates(start, end, level)]
            cuts = _viable_cuts(site, atom.start, atom.end, cuts)
            if not cuts:
                continue
            bounds = [atom.start, *cuts, atom.end]
            pieces = list(itertools.pairwise(bounds))
            counts = self._counts(atom.block, pieces)
            loss = atom.loss or level < splitter.atomic_floor
            refined: list[Atom] = []
            for (x, y), cost in zip(pieces, counts, strict=True):
                if x == atom.start:
                    strength = atom.strength
                elif site.after_lead_in(x):
                    strength = Strength.NEVER  # "For example:" stays with its example
                else:
                    strength = level
                piece = new_atom(atom.block, x, y, cost, strength, level, loss)
                if cost > self._hard(piece, budget):
                    refined.extend(self.refine(piece, budget))
                else:
                    refined.append(piece)
            return refined
        return [atom._replace(oversize=True)]

    def _counts(self, block: int, pieces: list[tuple[int, int]]) -> list[int]:
        """Piece counts: sums of counted leaves where aligned, else exact from the leaves."""
        costs = self.costs
        known = [costs.leaf_cost(block, x, y) for x, y in pieces]
        return [
            costs.count_range(block, x, y) if cost is None else cost
            for (x, y), cost in zip(pieces, known, strict=True)
        ]

    def _hard(self, piece: Atom, budget: Budget) -> int:
        """Room for ``piece``'s own text in its chunk: the maximum minus what it pays."""
        if budget.fixed is not None:
            return budget.fixed
        costs = self.costs
        paid = costs.start(piece.block, piece.start, piece.end) + costs.end(piece.block, piece.end)
        return costs.hard - paid - budget.extra

    def _soft(self, block: int, start: int, budget: Budget) -> int:
        """Room toward the target for a run of text starting at ``start``."""
        if budget.fixed is not None:
            return budget.fixed
        costs = self.costs
        high = costs.splitter(block).cut_bounds()[1]
        paid = costs.start(block, start, start) + costs.end(block, high)
        return min(costs.target, costs.hard) - paid - budget.extra

    def _stream(self, atom: Atom, levels: list[int], room: Budget) -> list[Atom]:
        """One walk over ``atom``, cutting inside its units where each run fills up.

        The atom's count is spread over its characters to estimate how far a run may
        reach; within the second half of that reach the strongest level that offers a
        cut wins (the last sentence end, else line end, else word …), snapped to a
        tokenizer boundary found in a small window. Nothing is enumerated beyond the
        windows actually cut, so a block of any size costs one pass.
        """
        site = self.costs.site(atom.block)
        splitter = self.costs.splitter(atom.block)
        low, high = splitter.cut_bounds()
        per_char = atom.cost / max(atom.end - atom.start, 1)
        cuts: list[tuple[int, int]] = []  # (offset, level of the cut)
        position = atom.start
        while True:
            budget = self._soft(atom.block, position, room)
            if budget <= 0:  # context eats the target: aim at what the maximum leaves
                piece = new_atom(atom.block, position, atom.end, 0, 0, atom.level)
                budget = max(self._hard(piece, room), 1)
            if ceil((atom.end - position) * per_char) <= budget:
                break
            reach = min(position + max(int(budget / per_char), 1), atom.end - 1, high - 1)
            floor = max(position, low)
            found = self._cut_within(site, splitter, levels, floor, reach, atom.end)
            if found is None:
                if Strength.CHARACTER not in levels:
                    break  # indivisible here (preserve_and_flag keeps lines and rows)
                # Nothing fits the estimate: take the nearest cut that leaves text on
                # both sides; the piece is then marked oversize if it is too large.
                limit = min(atom.end, high)
                forced = site.next_boundary(floor, limit)
                while forced is not None and not site.shows_text(position, forced):
                    forced = site.next_boundary(forced, limit)
                if forced is None or not site.shows_text(forced, atom.end):
                    break
                found = (forced, Strength.CHARACTER)
            cuts.append(found)
            position = found[0]
        if not cuts:
            return [atom._replace(oversize=True)]
        loss = atom.loss or min(level for _, level in cuts) < splitter.atomic_floor
        bounds = [(atom.start, atom.strength), *cuts, (atom.end, 0)]
        pieces: list[Atom] = []
        for (x, strength), (y, _) in itertools.pairwise(bounds):
            cost = ceil((y - x) * per_char)
            # Cut again (at any level inside units) if a repair needs it smaller.
            level = atom.level if x == atom.start else _INSIDE
            piece = new_atom(atom.block, x, y, cost, strength, level, loss)
            if cost > self._hard(piece, room):  # built again only then (not ``_replace``)
                piece = new_atom(atom.block, x, y, cost, strength, level, loss, True)
            pieces.append(piece)
        return pieces

    def _viable(self, site: CutSite, start: int, cut: int, end: int) -> bool:
        return site.shows_text(start, cut) and site.shows_text(cut, end)

    def _cut_within(
        self,
        site: CutSite,
        splitter: BlockSplitter,
        levels: list[int],
        floor: int,
        reach: int,
        end: int,
    ) -> tuple[int, int] | None:
        """The strongest cut in the second half of ``(floor, reach]``, else anywhere in it."""
        if reach <= floor:
            return None
        for lowest in (floor + (reach - floor) // 2, floor):
            for level in levels:
                cut = self._last_cut(site, splitter, level, lowest, reach, floor, end)
                if cut is not None:
                    return cut, level
        return None

    def _last_cut(
        self,
        site: CutSite,
        splitter: BlockSplitter,
        level: int,
        lowest: int,
        reach: int,
        floor: int,
        end: int,
    ) -> int | None:
        """The last viable offset of ``level`` in ``(lowest, reach]`` the tokenizer allows."""
        if level == Strength.CHARACTER:
            ranges = [(lowest + 1, reach)]
        elif level == Strength.WORD:
            ranges = ranges_of(WHITESPACE, site.text, lowest, reach + 1)
        else:
            ranges = splitter.candidates(lowest, reach + 1, level)
        for low, high in reversed(ranges[-_ATTEMPTS:]):
            cut = site.snap(max(low, lowest + 1), min(high, reach))
            if cut is not None and self._viable(site, floor, cut, end):
                return cut
        return None
