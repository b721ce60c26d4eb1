"""Overlap: repeat the previous chunk's trailing sentences at the start of the next one.

Only prose is eligible (a block whose behaviour allows it: paragraphs, block quotes …,
never code, tables or lists), only inside one section, only whole sentences from the
last unit the previous chunk shows, and only verbatim source. The longest such tail
whose exact count is within ``overlap_tokens`` (itself within ``max_overlap_tokens``) is
chosen; it is recorded in ``overlap_intervals`` and as ``overlap`` map runs, never as
retained coverage. Sentence starts are found by the same heuristic as sentence cuts,
whatever ``semantic_mode`` says, because overlap is defined at sentence boundaries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from fastrag.packing.costs import Costs
from fastrag.packing.leaves import RunKind
from fastrag.packing.refine import Atom
from fastrag.packing.render import Overlap
from fastrag.packing.split.prose import SENTENCE_END

__all__ = ["find_overlap"]

_CHARACTERS_PER_TOKEN: Final = 32
"""Generous bound on characters per token: how far back a tail is looked for."""


def find_overlap(
    costs: Costs, previous: Sequence[Atom], following: Sequence[Atom]
) -> Overlap | None:
    """The overlap to repeat before ``following``, or None when none is eligible."""
    limit = min(costs.config.overlap_tokens, costs.config.max_overlap_tokens)
    if limit <= 0 or not previous or not following:
        return None
    last, first = previous[-1], following[0]
    blocks = costs.layout.blocks
    source = blocks[last.block]
    if not source.behaviour.overlap or source.section != blocks[first.block].section:
        return None
    if costs.contexts(first.block, first.start, optional=True):
        return None  # the next chunk opens with repeated structure instead
    shown_from = last.start
    for atom in reversed(previous):
        if atom.block != last.block:
            break
        shown_from = atom.start
    site = costs.site(last.block)
    slot_start, slot_end, _ = source.slots[site.slot_index(max(last.end - 1, 0))]
    start, end = max(slot_start, shown_from), min(slot_end, last.end)
    text = source.text
    while end > start and text[end - 1].isspace():
        end -= 1
    if end <= start or not _verbatim(source.runs, start, end):
        return None
    window = max(start, end - (limit + 1) * _CHARACTERS_PER_TOKEN)
    candidates = [start] if start == slot_start and window == start else []
    for match in SENTENCE_END.finditer(text, window, end):
        group = 1 if match.start(1) >= 0 else 2
        candidates.append(match.end(group))
    for candidate in candidates:
        while candidate < end and text[candidate].isspace():
            candidate += 1
        if candidate >= end:
            continue
        if costs.count(text[candidate:end]) <= limit:
            return Overlap(last.block, candidate, end)
    return None


def _verbatim(runs: Sequence[tuple[int, int, int, int, int]], start: int, end: int) -> bool:
    """Whether display ``[start, end)`` shows only verbatim retained source."""
    return all(run[4] == RunKind.SOURCE for run in runs if run[0] < end and run[1] > start)
