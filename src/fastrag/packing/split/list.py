"""Lists: cut between items, top-level items first; repeat parent labels when they fit.

Each unit belongs to its nearest ``list_item``; an item boundary's strength falls with
its depth, so a chunk prefers to end between top-level items. A chunk that starts inside
a nested list (or inside an item's text) repeats the first line of every enclosing item
that began before it — ``"- Parent label"`` — as optional ``list_parent`` context: it is
dropped when it would not fit, since the structure is still recorded in the metadata.
Inside an item the text is prose (sentences, lines, words, characters).
"""

from __future__ import annotations

from collections.abc import Sequence

from fastrag.packing.blocks import Strength, item_strength
from fastrag.packing.config import PackingConfig
from fastrag.packing.split._site import ContextRange, CutSite, inside_unit_levels, ranges_of
from fastrag.packing.split.prose import LINE_BREAK, sentence_ranges

__all__ = ["ListSplitter"]


class ListSplitter:
    """Item splitting of one list block with parent labels as context."""

    __slots__ = ("_chains", "_item_starts", "_levels", "_starts_item", "site")

    atomic_floor: int = Strength.CHARACTER

    def __init__(self, site: CutSite, config: PackingConfig) -> None:
        self.site = site
        slots = site.block.slots
        normalized = site.normalized
        lineage = normalized.lineage
        position_of = site.position
        block = position_of(site.block.node_id)
        kinds, parents = lineage.kinds, lineage.parents
        known: dict[str, tuple[int, ...]] = {}  # an owner's units share its chain
        self._chains: list[tuple[int, ...]] = []
        for _, _, owner in slots:
            chain = known.get(owner)
            if chain is None:
                chain = known[owner] = _chain(position_of(owner), block, kinds, parents)
            self._chains.append(chain)
        # First display offset of every item (its first slot's start).
        self._item_starts: dict[int, int] = {}
        for (start, _, _), chain in zip(slots, self._chains, strict=True):
            for item in chain:
                self._item_starts.setdefault(item, start)
        self._starts_item: list[int | None] = [None]
        for index in range(1, len(self._chains)):
            chain = self._chains[index]
            opened = chain and chain[-1] not in self._chains[index - 1]
            self._starts_item.append(item_strength(len(chain)) if opened else None)
        strengths = sorted({s for s in self._starts_item if s is not None}, reverse=True)
        self._levels: tuple[int, ...] = (
            *strengths,
            Strength.UNIT,
            *inside_unit_levels(config.sentences),
        )

    @property
    def mandatory_context(self) -> bool:
        return False

    def levels(self) -> tuple[int, ...]:
        return self._levels

    def cut_bounds(self) -> tuple[int, int]:
        return (0, len(self.site.text))

    def candidates(self, start: int, end: int, level: int) -> list[tuple[int, int]]:
        if level > Strength.UNIT:
            starts = self._starts_item
            return [(c, c) for i, c in self.site.slot_starts(start, end) if starts[i] == level]
        if level == Strength.UNIT:
            # Never between an item's marker and its first block (``follows_syntax``).
            starts, site = self._starts_item, self.site
            return [
                (c, c)
                for i, c in site.slot_starts(start, end)
                if starts[i] is None and not site.follows_syntax(i)
            ]
        if level == Strength.SENTENCE:
            return sentence_ranges(self.site.text, start, end)
        if level == Strength.LINE:
            return ranges_of(LINE_BREAK, self.site.text, start, end)
        return []

    def leaf_cuts(self) -> list[int]:
        starts = self._starts_item
        end = len(self.site.text)
        return [cut for index, cut in self.site.slot_starts(0, end) if starts[index] is not None]

    def leading_context(self, start: int) -> tuple[ContextRange, ...]:
        """First lines of the items enclosing ``start`` that began before it."""
        if start <= 0:
            return ()
        text = self.site.text
        contexts: list[ContextRange] = []
        for item in self._chains[self.site.shown_slot(start)]:
            label_start = self._item_starts[item]
            if label_start >= start:
                break
            line_end = text.find("\n", label_start)
            if (len(text) if line_end < 0 else line_end) > start:
                continue  # the chunk starts on this very line: it is not a parent label
            label = self.site.parent_label(label_start, len(text))
            if label is not None:
                contexts.append(label)
        return tuple(contexts)

    def trailing_context(self, end: int) -> tuple[ContextRange, ...]:
        return ()


def _chain(
    position: int, block: int, kinds: Sequence[str], parents: Sequence[int]
) -> tuple[int, ...]:
    """The list items enclosing node ``position`` inside node ``block``, outermost
    first (by position in the tree)."""
    items: list[int] = []
    while position != block:
        if kinds[position] == "list_item":
            items.append(position)
        position = parents[position]
        if position < 0:
            break
    items.reverse()
    return tuple(items)
