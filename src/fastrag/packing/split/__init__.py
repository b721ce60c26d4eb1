"""Splitters: where an oversized block may be cut, and what context a cut repeats.

One table maps each ``blocks.Splitter`` to its class; every class answers the same four
questions for one block (``BlockSplitter``): its cut levels from strongest to weakest,
the cuts at one level inside a display range, and the context to repeat before a chunk
that starts inside the block (table header, parent list labels, opening code fence) or
after one that ends inside it (closing code fence). Word and character cuts are common
to all and made by the refiner.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Protocol

from fastrag.packing.blocks import Splitter
from fastrag.packing.config import PackingConfig
from fastrag.packing.split._site import ContextRange, CutSite
from fastrag.packing.split.code import CodeSplitter
from fastrag.packing.split.list import ListSplitter
from fastrag.packing.split.prose import LinesSplitter, ProseSplitter
from fastrag.packing.split.table import TableSplitter

__all__ = ["SPLITTERS", "BlockSplitter", "ContextRange", "CutSite", "make_splitter"]


class BlockSplitter(Protocol):
    """What the refiner and the renderer ask of a block's splitter."""

    atomic_floor: int
    """Cuts at levels below this one split an indivisible unit (a row, a code line)."""

    @property
    def mandatory_context(self) -> bool:
        """Whether a chunk starting inside the block must repeat context (a header …)."""
        ...

    def levels(self) -> tuple[int, ...]:
        """Cut levels (``Strength`` values) from strongest to weakest."""
        ...

    def cut_bounds(self) -> tuple[int, int]:
        """Cuts must lie strictly between these display offsets."""
        ...

    def candidates(self, start: int, end: int, level: int) -> list[tuple[int, int]]:
        """Where ``level`` may cut strictly inside ``(start, end)``, in order.

        Each candidate is a range ``(low, high)`` of acceptable offsets (the whitespace
        after a sentence, say); the refiner snaps it to a tokenizer boundary. Cuts
        between units are single offsets (``low == high``) and need no snapping.
        """
        ...

    def leaf_cuts(self) -> list[int]:
        """The finest cuts between units that packing uses: where a large block is counted."""
        ...

    def leading_context(self, start: int) -> tuple[ContextRange, ...]:
        """Display ranges to repeat before a chunk that starts at ``start`` (> 0)."""
        ...

    def trailing_context(self, end: int) -> tuple[ContextRange, ...]:
        """Display ranges to repeat after a chunk that ends at ``end`` (< the end)."""
        ...


SPLITTERS: Mapping[Splitter, Callable[[CutSite, PackingConfig], BlockSplitter]] = MappingProxyType(
    {
        Splitter.PROSE: ProseSplitter,
        Splitter.LINES: LinesSplitter,
        Splitter.CODE: CodeSplitter,
        Splitter.TABLE: TableSplitter,
        Splitter.LIST: ListSplitter,
    }
)


def make_splitter(site: CutSite, config: PackingConfig) -> BlockSplitter:
    """The splitter of ``site``'s block, chosen by its behaviour."""
    return SPLITTERS[site.block.behaviour.splitter](site, config)
