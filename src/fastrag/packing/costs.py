"""The packer's arithmetic: block counts, join and prefix costs, context costs, budgets.

Every block's display text is counted once, in one batched call. The packer then plans on
sums — block counts, plus the cost of the text joining two blocks, plus the heading-path
prefix a chunk starting in a section pays (counted once per section), plus repeated
context — and never re-tokenizes a growing candidate. Sums are estimates (counts need not
be additive); the final chunk is counted exactly once and repaired if it is over budget
(``finish.py``). Prefix sums over blocks make the cost of any run of whole blocks — a
whole section — one subtraction.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate
from typing import Any, Final

from fastrag.packing.config import PackingConfig
from fastrag.packing.contract import STRUCTURE_VERSION, embedding_prefix
from fastrag.packing.counter import LeafCounter, Part
from fastrag.packing.leaves import Layout
from fastrag.packing.split import BlockSplitter, ContextRange, CutSite, make_splitter
from fastrag.tokenization.protocol import Tokenizer

__all__ = ["OPTIONAL_CONTEXT_SHARE", "Costs"]

OPTIONAL_CONTEXT_SHARE: Final = 4
"""Optional context (parent list labels) may take at most 1/4 of ``max_tokens``."""


class Costs:
    """Memoized token costs of one document's blocks, joins, prefixes and contexts."""

    __slots__ = (
        "_context",
        "_gap",
        "_prefix",
        "_sites",
        "_splitters",
        "_start",
        "block",
        "config",
        "counter",
        "hard",
        "joins",
        "layout",
        "leaves",
        "min_preferred",
        "prefix_sums",
        "reserve",
        "retained_starts",
        "target",
        "tokenizer",
    )

    def __init__(
        self,
        layout: Layout,
        tokenizer: Tokenizer,
        config: PackingConfig,
        *,
        memo: dict[str, int] | None = None,
    ) -> None:
        self.layout = layout
        self.tokenizer = tokenizer
        self.config = config
        blocks = layout.blocks
        self._sites: dict[int, CutSite] = {}
        self._splitters: dict[int, BlockSplitter] = {}
        self.leaves: dict[int, tuple[list[int], list[int]]] = {}
        self.counter = LeafCounter(tokenizer, memo)
        self.block: list[int] = self._count_blocks(config.max_tokens - config.overlap_tokens)
        self._gap: dict[str, int] = {"": 0}
        self.joins: list[int] = [self.gap(block.gap) for block in blocks]
        if self.joins:
            self.joins[0] = 0
        self.prefix_sums: list[int] = [
            0,
            *accumulate(cost + join for cost, join in zip(self.block, self.joins, strict=True)),
        ]
        self._prefix: dict[tuple[int, bool], int] = {}
        self.retained_starts = [start for start, _ in layout.retained]
        self._context: dict[tuple[int, int, int], int] = {}
        self._start: dict[tuple[int, int, int], int] = {}
        # Overlap is added after planning: plan with its room reserved.
        self.reserve = config.overlap_tokens
        self.hard = config.max_tokens - self.reserve
        self.target = min(config.target_tokens, self.hard)
        self.min_preferred = min(config.min_preferred_tokens, self.hard)

    def _count_blocks(self, hard: int) -> list[int]:
        """Count every block once, batched; a large block by its leaves (rows, items …).

        A block long enough to be cut (``hard`` characters or more) is counted piece by
        piece at its splitter's finest cuts between units: its cost is their sum, and
        any run of whole pieces costs a subtraction, so cutting it counts nothing again.
        """
        # Bounds of a whole block as a tuple: the counter keeps them for the document,
        # and a tuple of ints leaves the collector's watch at its first collection (a
        # list, one per block, stayed tracked and was promoted to the oldest generation).
        texts: list[str] = []
        leaves: list[Sequence[int]] = []
        for block in self.layout.blocks:
            text = block.text
            texts.append(text)
            if len(text) >= hard and len(block.slots) > 1:
                cuts = self.splitter(block.number).leaf_cuts()
                if cuts:
                    self.leaves[block.number] = ([0, *cuts, len(text)], [])
                    leaves.append(self.leaves[block.number][0])
                    continue
            leaves.append((0, len(text)))
        # A leaf of fewer than ~2 characters per token of the budget is rarely cut
        # inside; a longer one is counted by sub-parts so that its cuts count cheaply.
        counts = self.counter.count_blocks(texts, leaves, 2 * hard)
        costs: list[int] = []
        position = 0
        for block, bounds in zip(self.layout.blocks, leaves, strict=True):
            planned = self.leaves.get(block.number)
            if planned is not None:
                stop = position + len(bounds) - 1
                planned[1].extend(accumulate(counts[position:stop], initial=0))
                costs.append(planned[1][-1])
                position = stop
            else:
                costs.append(counts[position])
                position += 1
        return costs

    def leaf_cost(self, block: int, start: int, end: int) -> int | None:
        """Exact sum of the leaves of ``block`` in ``[start, end)``, if both are leaf cuts."""
        leaves = self.leaves.get(block)
        if leaves is None:
            return None
        bounds, sums = leaves
        first, last = bisect_left(bounds, start), bisect_left(bounds, end)
        if first >= len(bounds) or last >= len(bounds):
            return None
        if bounds[first] != start or bounds[last] != end:
            return None
        return sums[last] - sums[first]

    def count(self, text: str) -> int:
        return self.tokenizer.count(text)

    def block_parts(self, block: int, start: int, end: int, out: list[Part]) -> None:
        """Append parts joining to display ``[start, end)`` of ``block`` (for ``exact``)."""
        self.counter.block_parts(block, start, end, out)

    def count_range(self, block: int, start: int, end: int) -> int:
        """Exactly ``count`` of display ``[start, end)`` of ``block``, from its leaves."""
        return self.counter.count_range(block, start, end)

    def exact(self, prefix: str, parts: Sequence[Part]) -> int:
        """Exactly ``count(prefix + <parts joined>)``; see ``LeafCounter.exact``."""
        return self.counter.exact(prefix, parts)

    def gap(self, text: str) -> int:
        """Cost of the text joining two blocks (memoized: there are few distinct gaps)."""
        cost = self._gap.get(text)
        if cost is None:
            cost = self._gap[text] = self.tokenizer.count(text)
        return cost

    def range_cost(self, first: int, end: int) -> int:
        """Sum of blocks ``[first, end)`` and the joins between them."""
        return self.prefix_sums[end] - self.prefix_sums[first] - self.joins[first]

    def prefix(self, section: int, heading_displayed: bool) -> int:
        """Cost of the heading-path prefix of a chunk starting in ``section``."""
        key = (section, heading_displayed)
        cost = self._prefix.get(key)
        if cost is None:
            lineage = self.layout.sections[section]
            displayed = (lineage.heading_id,) if heading_displayed else ()
            metadata: dict[str, Any] = {
                "structure_version": STRUCTURE_VERSION,
                "embed_heading_path": self.config.include_heading_path_in_embedding,
                "heading_ids": lineage.heading_ids,
                "heading_path": lineage.titles,
                "displayed_heading_ids": displayed,
            }
            text = embedding_prefix(metadata)
            cost = self._prefix[key] = self.tokenizer.count(text) if text else 0
        return cost

    def site(self, block: int) -> CutSite:
        site = self._sites.get(block)
        if site is None:
            site = self._sites[block] = CutSite(
                self.layout.blocks[block],
                self.layout.normalized,
                self.tokenizer.boundaries,
                self.layout.positions,
            )
        return site

    def splitter(self, block: int) -> BlockSplitter:
        splitter = self._splitters.get(block)
        if splitter is None:
            splitter = self._splitters[block] = make_splitter(self.site(block), self.config)
        return splitter

    def release(self, first: int, end: int) -> None:
        """Blocks ``[first, end)`` are in finished chunks: let go of what was built for
        them (prepared leaves, cut sites, splitters — rebuilt on demand if asked for
        again, so this changes no result), so that memory falls as chunks pile up."""
        counter, sites, splitters = self.counter, self._sites, self._splitters
        for block in range(first, end):
            counter.release(block)
            sites.pop(block, None)
            splitters.pop(block, None)

    def heading_displayed(self, block: int, start: int, end: int) -> bool:
        """Whether ``[start, end)`` shows the whole heading of its block's section."""
        entry = self.layout.blocks[block]
        return (
            start == 0
            and end == len(entry.text)
            and self.layout.sections[entry.section].heading_id == entry.node_id
        )

    def contexts(self, block: int, start: int, *, optional: bool) -> tuple[ContextRange, ...]:
        """Leading context of a chunk starting at ``start`` inside ``block``."""
        if start <= 0:
            return ()
        splitter = self.splitter(block)
        if not optional and not splitter.mandatory_context:
            return ()
        found = splitter.leading_context(start)
        return tuple(context for context in found if context.mandatory or optional)

    def context_cost(self, block: int, contexts: Sequence[ContextRange]) -> int:
        """Cost of repeated context ranges (each counted once, plus one join token)."""
        total = 0
        text = self.layout.blocks[block].text
        for context in contexts:
            key = (block, context.start, context.end)
            cost = self._context.get(key)
            if cost is None:
                cost = self._context[key] = self.tokenizer.count(text[context.start : context.end])
            total += cost + 1
        return total

    def start(self, block: int, start: int, end: int) -> int:
        """What a chunk starting at ``[start, end)`` of ``block`` pays before its content."""
        # Memoized: the planner asks again for every atom it considers as a chunk start.
        key = (block, start, end)
        cost = self._start.get(key)
        if cost is None:
            cost = self._start[key] = self._start_cost(block, start, end)
        return cost

    def planned(self) -> None:
        """Planning is over: drop the memo of chunk-start costs.

        The planner asks for the same starts again and again; the finisher only for the
        few chunks it repairs. The memo (a key tuple per atom considered) is about a
        third of the input size on large documents: not worth keeping through finishing.
        """
        self._start.clear()

    def _start_cost(self, block: int, start: int, end: int) -> int:
        section = self.layout.blocks[block].section
        prefix = self.prefix(section, self.heading_displayed(block, start, end))
        if start <= 0:
            return prefix + self.reserve
        mandatory = self.contexts(block, start, optional=False)
        return prefix + self.context_cost(block, mandatory) + self.reserve

    def optional(self, block: int, start: int) -> int:
        """Extra cost of the optional context a chunk starting there would repeat."""
        if start <= 0:
            return 0
        extra = [c for c in self.splitter(block).leading_context(start) if not c.mandatory]
        return self.context_cost(block, extra) if extra else 0

    def include_optional(self, total: int, block: int, start: int) -> bool:
        """Optional context is repeated when it fits and stays a small share of the budget."""
        extra = self.optional(block, start)
        return (
            extra > 0
            and total + extra <= self.hard
            and extra * OPTIONAL_CONTEXT_SHARE <= self.config.max_tokens
        )

    def end(self, block: int, end: int) -> int:
        """What a chunk ending at ``end`` inside ``block`` pays after its content."""
        if end >= len(self.layout.blocks[block].text):
            return 0
        return self.context_cost(block, self.splitter(block).trailing_context(end))
