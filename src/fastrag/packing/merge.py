"""Greedy packing of atoms toward the target, and merging of small sibling chunks.

``pack_atoms`` is the whole packing algorithm for one run of atoms, in the manner of
semchunk: prefix sums of the atoms' costs (plus the joins between blocks), ``bisect`` to
find how far a chunk starting at atom ``i`` may reach under the target and under the
maximum, then one short scan of the admissible ends for the *strongest* boundary — a
block boundary beats a row boundary beats a sentence boundary — preferring the later
end among equals. A chunk passes the target, never the maximum, only to reach
``min_preferred_tokens``, or to keep the block a paragraph ending with ":" announces
(``_introduces``); when both cannot stay, the paragraph starts the next chunk with its
block, if that one holds both and this one keeps ``min_preferred_tokens``. A heading
(or a lead-in paragraph, ``lead_in.py``) never ends a chunk when its body follows (the
boundary after it is ``NEVER``), and a blank atom never starts one.

``merge_plans`` then joins adjacent chunks across section boundaries while their sum
stays within the target (or within the maximum, when one of them is below the
preferred minimum): small sibling sections travel together.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate, pairwise
from typing import TYPE_CHECKING, Final, NamedTuple

from fastrag.packing.blocks import Strength
from fastrag.packing.costs import Costs
from fastrag.packing.lead_in import announces
from fastrag.packing.refine import Atom

if TYPE_CHECKING:
    from fastrag.packing.leaves import Block

__all__ = [
    "MERGED",
    "SECTION",
    "SPLIT",
    "Plan",
    "fit_together",
    "merge_plans",
    "pack_atoms",
    "plan_of",
]

SECTION: Final = "section"
MERGED: Final = "merged"
SPLIT: Final = "split"

_END: Final = int(Strength.SECTION) + 1


class Plan(NamedTuple):
    """A planned chunk: its atoms in order and its estimated cost in three parts.

    A named tuple: immutable and cheap to build (plans are made and merged by the
    thousand per document).
    """

    atoms: tuple[Atom, ...]
    kind: str
    start: int
    """Prefix, leading context and overlap reserve."""
    body: int
    """The atoms and the joins between their blocks."""
    end: int
    """Trailing context (a closing code fence)."""
    mergeable: bool = False
    """Starts at a section boundary, so it may merge with the chunk before it."""

    @property
    def total(self) -> int:
        return self.start + self.body + self.end


def new_plan(
    atoms: tuple[Atom, ...], kind: str, start: int, body: int, end: int, mergeable: bool = False
) -> Plan:
    """``Plan(...)`` by ``tuple.__new__`` (see ``refine.new_atom``: plans are built by the
    ten thousand)."""
    return tuple.__new__(Plan, (atoms, kind, start, body, end, mergeable))


def _join(costs: Costs, previous: Atom, atom: Atom) -> int:
    return costs.joins[atom.block] if atom.block != previous.block else 0


def plan_of(costs: Costs, atoms: Sequence[Atom], kind: str) -> Plan:
    """A plan of ``atoms`` with its costs computed from scratch."""
    first, last = atoms[0], atoms[-1]
    body = first.cost + sum(
        atom.cost + _join(costs, previous, atom) for previous, atom in pairwise(atoms)
    )
    return new_plan(
        tuple(atoms),
        kind,
        costs.start(first.block, first.start, first.end),
        body,
        costs.end(last.block, last.end),
    )


def pack_atoms(costs: Costs, atoms: Sequence[Atom], kind: str) -> list[Plan]:
    """Pack ``atoms`` (one section's run) into plans; see the module docstring."""
    count = len(atoms)
    if not count:
        return []
    blocks = costs.layout.blocks
    joins = [0] + [_join(costs, atoms[m - 1], atoms[m]) for m in range(1, count)]
    sums = [0, *accumulate(atom.cost + join for atom, join in zip(atoms, joins, strict=True))]
    blank = [
        atom.start == 0 and atom.end == len(blocks[atom.block].text) and blocks[atom.block].blank
        for atom in atoms
    ]

    edges = _Edges(costs, atoms, blocks, blank)
    strength, trailing = edges.strength, edges.trailing

    plans: list[Plan] = []
    first = 0
    while first < count:
        atom = atoms[first]
        start = costs.start(atom.block, atom.start, atom.end)
        base = sums[first] + joins[first]
        hard = costs.hard - start
        reach_max = bisect_right(sums, base + hard, first + 1) - 1
        if reach_max <= first:
            reach_max = first + 1  # an atom that cannot fit alone travels alone
            best = first + 1
        else:
            soft = bisect_right(sums, base + costs.target - start, first + 1) - 1
            soft = min(max(soft, first + 1), reach_max)
            need = base + costs.min_preferred - start
            reach = bisect_left(sums, need, first + 1)
            if sums[soft] < need:
                low = high = min(max(reach, soft), reach_max)
            else:
                low, high = max(reach, first + 1), soft
            best = _choose(first, low, high, reach_max, sums, base, hard, strength, trailing)
            if best < count and atoms[best - 1].block == atoms[-1].block:
                best = _without_runt(best, sums, base, hard, costs.min_preferred, trailing)
            elif best < count and _introduces(blocks, atoms[best - 1], atoms[best]):
                # The chunk passes the target so that a paragraph ending with ":" keeps
                # the block it announces, if that block fits whole within the maximum
                # (the Python docs' reStructuredText ended 103 of 8,113 chunks on such
                # a paragraph, the next opening on its code or list; HTML 25 of 2,347,
                # Markdown 11 of 13,134). A block that does not fit is cut as before.
                end = _block_end(atoms, best)
                if (
                    sums[end] - base + trailing(end) <= hard
                    and strength(first, end) > Strength.NEVER
                ):
                    best = end
                else:
                    # Too much for this chunk: the paragraph goes with its block to the
                    # next one instead, if that holds both and this one keeps enough
                    # (PostgreSQL's manual ended 24 of 4,772 chunks on "… For example:").
                    lead = _block_start(atoms, best - 1)
                    if (
                        lead > first
                        and sums[lead] - base >= costs.min_preferred - start
                        and strength(first, lead) > Strength.NEVER
                        and _fits_from(costs, atoms, sums, joins, lead, end, trailing(end))
                    ):
                        best = lead
        chosen = atoms[first:best]
        body = sums[best] - base
        plans.append(new_plan(tuple(chosen), kind, start, body, trailing(best)))
        first = best
    return plans


class _Edges:
    """What ending a chunk between two atoms of a run means: how good a cut it is and
    what the last atom's block adds when cut there.

    An object rather than two closures in ``pack_atoms``: compiled (setup.py), nested
    functions and the environment they share refer to each other, so each call left
    the run's atoms and blocks as cyclic garbage for the collector.
    """

    __slots__ = ("atoms", "blank", "blocks", "costs", "count")

    def __init__(
        self, costs: Costs, atoms: Sequence[Atom], blocks: Sequence[Block], blank: list[bool]
    ) -> None:
        self.costs = costs
        self.atoms = atoms
        self.blocks = blocks
        self.blank = blank
        self.count = len(atoms)

    def strength(self, first: int, end: int) -> int:
        if end >= self.count:
            return _END
        atoms, blank = self.atoms, self.blank
        before, after = atoms[end - 1], atoms[end]
        block = self.blocks[before.block]
        if block.behaviour.attach_forward and before.end == len(block.text):
            return Strength.NEVER
        if blank[end] or all(blank[first:end]):
            return Strength.NEVER
        return after.strength

    def trailing(self, end: int) -> int:
        atoms = self.atoms
        if end >= self.count or atoms[end].block != atoms[end - 1].block:
            return 0
        return self.costs.end(atoms[end - 1].block, atoms[end - 1].end)


def _without_runt(
    best: int,
    sums: list[int],
    base: int,
    hard: int,
    min_preferred: int,
    trailing: Callable[[int], int],
) -> int:
    """The run's end instead of ``best`` when what the run would have left after ``best``
    costs less than ``min_preferred_tokens`` and fits within the maximum with this
    chunk: a runt ("… see uncancel() for details." then a chunk of ".. versionadded::
    3.11" alone) joins the chunk it ends instead of standing alone.

    Only a runt cut from the block this chunk ends in (the caller checks that ``best``
    lies inside the run's last block): a torn-off tail has no meaning of its own. A
    small whole block at the end of a section is a topic of its own and stays a chunk
    (or merges with the next section's): absorbing those too diluted a focused chunk's
    embedding enough, on the Node.js URL docs, that hybrid search ranked
    ``url.parse()``'s "A URIError is thrown" second for "When is a URIError thrown?"."""
    end = len(sums) - 1
    if sums[end] - sums[best] >= min_preferred or sums[end] - base + trailing(end) > hard:
        return best
    return end


def _introduces(blocks: Sequence[Block], before: Atom, after: Atom) -> bool:
    """Whether a chunk ending between ``before`` and ``after`` would end on a whole
    paragraph ending with ":" and open the next on the whole block it announces
    (``lead_in.announces``): "… could look like this (forgetting about error handling
    for the moment):", too long to be a lead-in, then the code."""
    block = blocks[before.block]
    return (
        before.end == len(block.text) and after.start == 0 and announces(block, blocks[after.block])
    )


def _block_start(atoms: Sequence[Atom], index: int) -> int:
    """The index of the first atom of ``atoms[index]``'s block."""
    start = index
    while start > 0 and atoms[start - 1].block == atoms[index].block:
        start -= 1
    return start


def _fits_from(
    costs: Costs,
    atoms: Sequence[Atom],
    sums: list[int],
    joins: list[int],
    first: int,
    end: int,
    trailing: int,
) -> bool:
    """Whether a chunk of ``atoms[first:end]`` stays within the maximum."""
    atom = atoms[first]
    start = costs.start(atom.block, atom.start, atom.end)
    return start + sums[end] - sums[first] - joins[first] + trailing <= costs.hard


def _block_end(atoms: Sequence[Atom], index: int) -> int:
    """The index just past the last atom of ``atoms[index]``'s block."""
    end = index
    while end < len(atoms) and atoms[end].block == atoms[index].block:
        end += 1
    return end


def _choose(
    first: int,
    low: int,
    high: int,
    reach_max: int,
    sums: list[int],
    base: int,
    hard: int,
    strength: Callable[[int, int], int],
    trailing: Callable[[int], int],
) -> int:
    """The end in ``[low, high]`` with the strongest boundary (latest among equals)."""
    best, best_strength = -1, Strength.NEVER - 1
    for end in range(high, low - 1, -1):
        if sums[end] - base + trailing(end) > hard:
            continue
        value = strength(first, end)
        if value > best_strength:
            best, best_strength = end, value
    if best_strength > Strength.NEVER:
        return best
    # Everything admissible ends after a heading: look further, up to the maximum.
    fallback = -1
    for end in range(reach_max, first, -1):
        if sums[end] - base + trailing(end) > hard:
            continue
        if strength(first, end) > Strength.NEVER:
            return end
        if fallback < 0:
            fallback = end
    return fallback if fallback > 0 else max(best, first + 1)


def merge_plans(costs: Costs, plans: list[Plan]) -> list[Plan]:
    """Join adjacent plans across section boundaries while the sum stays small."""
    if len(plans) < 2:
        return plans
    merged: list[Plan] = [plans[0]]
    for plan in plans[1:]:
        previous = merged[-1]
        if plan.mergeable and fit_together(costs, previous, plan):
            join = costs.joins[plan.atoms[0].block]
            merged[-1] = new_plan(
                previous.atoms + plan.atoms,
                MERGED,
                previous.start,
                previous.body + join + plan.body,
                plan.end,
                previous.mergeable,
            )
        else:
            merged.append(plan)
    return merged


def fit_together(costs: Costs, previous: Plan, plan: Plan) -> bool:
    """Whether ``merge_plans`` joins ``plan`` to ``previous`` (if it is mergeable).

    Monotone, which ``Planner.cut`` relies on: a plan that ``plan`` grows into by merging
    what follows it (the same start, a larger body, no end) fits with ``previous`` only
    if ``plan`` does.
    """
    if previous.end:  # ends inside a block: never merged across
        return False
    total = previous.start + previous.body + costs.joins[plan.atoms[0].block] + plan.body
    total += plan.end
    if total <= costs.target:
        return True
    small = min(previous.total, plan.total) < costs.min_preferred
    return small and total <= costs.hard
