"""Counting each leaf once, and every chunk exactly from the counted leaves.

The two counting passes of a naive packer — every leaf to plan, every final chunk to
check the budget — are the whole cost of packing (DESIGN.md, "Performance design").
``LeafCounter`` keeps the first and makes the second almost free: each leaf is counted
once, in one batch, and *prepared* on first use (``fastrag.tokenization.counting``), so
the exact count of any text made of whole leaves re-encodes only the small windows
around the joins (``exact``), not the leaves.

A long leaf (a paragraph of a plain-text file, a huge code block), the kind a chunk
starts or ends inside, is counted by *sub-parts* of about ``SUB_PART`` characters cut at
certified split points. Split points are properties of the text (``SplittableTokenizer``:
a point certified inside a slice is one of every text containing the slice's
surroundings), so the leaf's count is the sum of its sub-parts' counts, exactly, and a
run of whole sub-parts costs a subtraction. A chunk cut inside the leaf then re-encodes
only the ragged sub-parts at its ends. A tokenizer without split-point hints keeps whole
leaves, and each chunk gets one full count.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate, pairwise
from typing import Final

from fastrag.tokenization.counting import (
    Prepared,
    count_and_prepare,
    count_many,
    count_prepared,
    prepare_plain,
)
from fastrag.tokenization.protocol import Tokenizer

__all__ = ["SUB_PART", "LeafCounter", "Part"]

Part = Prepared | str
"""A piece of a chunk's text for ``LeafCounter.exact``: prepared (a plain tuple, read by
position: text 0, count 1, split 2, head 3, tail 4, middle 5), or plain text."""

SUB_PART: Final = 256
"""Characters per sub-part of a long leaf: a chunk end inside the leaf re-encodes half of
one on average, against one split-point search and one count call per sub-part."""
_SEARCH: Final = 64
"""Characters searched for a split point at a time."""

_MEMO_LIMIT: Final = 128
"""Longest text whose count is memoized (short texts are the ones that repeat)."""

_Finder = Callable[[str], int | None]


class LeafCounter:
    """Counts the leaves of one document's blocks and counts chunks made of them."""

    __slots__ = (
        "_bounds",
        "_counts",
        "_first",
        "_last",
        "_memo",
        "_per_call",
        "_prefixes",
        "_prepared",
        "_starts",
        "_sub",
        "_texts",
        "tokenizer",
    )

    def __init__(self, tokenizer: Tokenizer, memo: dict[str, int] | None = None) -> None:
        self.tokenizer = tokenizer
        self._first: _Finder | None = getattr(tokenizer, "first_split_point", None)
        self._last: _Finder | None = getattr(tokenizer, "last_split_point", None)
        self._memo: dict[str, int] = {} if memo is None else memo
        """Counts of short texts; a caller packing one document in windows shares it."""
        self._per_call = 0
        self._bounds: list[Sequence[int]] = []
        """Per block: display offsets of its leaves' edges, ``0`` to ``len(text)``."""
        self._starts: list[int] = []
        """Per block: flat index of its first leaf."""
        self._texts: list[str] = []
        """Per block: its display text."""
        self._counts: list[int] = []
        self._prepared: list[Prepared | None] = []
        self._sub: list[tuple[list[int], list[int]] | None] = []
        """Per leaf with sub-parts: their edges (display offsets of the block, the leaf's
        own edges included) and the prefix sums of their counts."""
        self._prefixes: dict[str, Prepared] = {}

    def count_blocks(
        self, texts: Sequence[str], bounds_of: Sequence[Sequence[int]], long: int
    ) -> list[int]:
        """Exact leaf counts, flat in block order: block ``i`` is ``texts[i]``, its leaves
        cut at ``bounds_of[i]`` (two sequences, not a pair per block).

        Leaf bounds are display offsets from ``0`` to ``len(text)``; leaf ``k`` of a
        block is ``text[bounds[k]:bounds[k + 1]]``. A leaf of ``long`` characters or more
        is counted by sub-parts. Call once, before anything else.
        """
        long = max(long, 2 * SUB_PART)
        find = self._first if self._last is not None else None
        pieces: list[str] = []
        # Per leaf: its first piece and its sub-part edges (None: counted whole). Two
        # lists, not a pair per leaf: one tuple fewer per leaf for the collector.
        firsts: list[int] = []
        edges_of: list[list[int] | None] = []
        for text, bounds in zip(texts, bounds_of, strict=True):
            self._texts.append(text)
            self._bounds.append(bounds)
            self._starts.append(len(firsts))
            for index in range(len(bounds) - 1):
                x, y = bounds[index], bounds[index + 1]
                firsts.append(len(pieces))
                edges = _sub_cuts(find, text, x, y) if find is not None and y - x >= long else []
                if edges:
                    edges = [x, *edges, y]
                    pieces.extend(text[a:b] for a, b in pairwise(edges))
                    edges_of.append(edges)
                else:
                    pieces.append(text[x:y])
                    edges_of.append(None)
        # Whole leaves are counted and prepared in one batch (a call per leaf costs more
        # than the preparing); a leaf with sub-parts is prepared only if a chunk holds it
        # whole, and its sub-parts are only counted.
        whole = [index for index, cuts in enumerate(edges_of) if cuts is None]
        prepared = count_and_prepare(
            self.tokenizer, [pieces[firsts[index]] for index in whole], memo=self._memo
        )
        counts: list[int] = [0] * len(pieces)
        self._prepared = [None] * len(firsts)
        for index, part in zip(whole, prepared, strict=True):
            self._prepared[index] = part
            counts[firsts[index]] = part[1]
        subs = [
            position
            for first, cuts in zip(firsts, edges_of, strict=True)
            if cuts is not None
            for position in range(first, first + len(cuts) - 1)
        ]
        for position, count in zip(
            subs, count_many(self.tokenizer, [pieces[p] for p in subs]), strict=True
        ):
            counts[position] = count
        self._per_call = self.tokenizer.count("") if find is not None else 0
        for first, cuts in zip(firsts, edges_of, strict=True):
            if cuts is None:
                self._counts.append(counts[first])
                self._sub.append(None)
                continue
            sums = list(accumulate(counts[first : first + len(cuts) - 1], initial=0))
            self._sub.append((cuts, sums))
            self._counts.append(self._run(sums, 0, len(cuts) - 1))
        return self._counts

    def release(self, block: int) -> None:
        """Drop the prepared parts of ``block``'s leaves (rebuilt on demand if asked for
        again): a finished chunk's leaves are not needed any more, and prepared parts
        (their texts, heads and tails) are most of what counting holds."""
        first = self._starts[block]
        end = self._starts[block + 1] if block + 1 < len(self._starts) else len(self._prepared)
        self._prepared[first:end] = [None] * (end - first)

    def _run(self, sums: list[int], low: int, high: int) -> int:
        """Exact count of sub-parts ``[low, high)`` of one leaf: their cuts are split
        points, so counts add up, less the per-call constant once per cut."""
        return sums[high] - sums[low] - (high - low - 1) * self._per_call

    def _leaf(self, leaf: int, text: str) -> Prepared:
        """The prepared part of a whole leaf with sub-parts, prepared on first use."""
        prepared = prepare_plain(self.tokenizer, [text], [self._counts[leaf]], memo=self._memo)
        self._prepared[leaf] = prepared[0]
        return prepared[0]

    def block_parts(self, block: int, start: int, end: int, out: list[Part]) -> None:
        """Append parts joining to display ``[start, end)`` of block ``block``.

        A whole leaf is its prepared part (count known); a run of whole sub-parts is one
        part whose count is a subtraction; the ragged ends are plain text re-encoded
        with their join windows.
        """
        if start >= end:
            return
        text, bounds = self._texts[block], self._bounds[block]
        first_leaf = self._starts[block]
        if len(bounds) == 2 and start == 0 and end == len(text):
            out.append(self._prepared[first_leaf] or self._leaf(first_leaf, text))
            return
        index = max(bisect_right(bounds, start) - 1, 0)
        while index < len(bounds) - 1 and bounds[index] < end:
            x, y = bounds[index], bounds[index + 1]
            a, b = max(start, x), min(end, y)
            leaf = first_leaf + index
            index += 1
            if a >= b:
                continue
            if a == x and b == y:
                out.append(self._prepared[leaf] or self._leaf(leaf, text[x:y]))
                continue
            sub = self._sub[leaf]
            if sub is None:
                self._partial(leaf, text, x, y, a, b, out)
                continue
            self._sub_parts(sub, text, a, b, out)

    def _partial(
        self, leaf: int, text: str, x: int, y: int, a: int, b: int, out: list[Part]
    ) -> None:
        """Parts for ``text[a:b]``, most of leaf ``text[x:y]`` (a chunk edge trims it).

        The leaf's middle — between its first and last split points, count known — is
        reused: an edge with leaf text on both sides in the chunk stays a split point.
        When the range starts (ends) at or after (before) such a point, a new split
        point is certified in a short window from the range's edge and the middle's
        count corrected by the few characters in between. Only the ends are re-encoded.
        """
        prepared = self._prepared[leaf] or self._leaf(leaf, text[x:y])
        middle = prepared[5]
        if not prepared[2] or middle is None or self._first is None or self._last is None:
            out.append(text[a:b])
            return
        low, high = x + len(prepared[3]), y - len(prepared[4])
        if a >= low:
            found = self._first(text[a : min(a + _SEARCH, b)])
            if found is None or a + found >= high or a - low > _SEARCH:
                out.append(text[a:b])
                return
            # count(text[low:high]) = count(text[low:cut]) + count(text[cut:high]) - k
            middle -= self._count(text[low : a + found]) - self._per_call
            low = a + found
        if b <= high:
            window = max(low, b - _SEARCH)
            found = self._last(text[window:b])
            if found is None or window + found <= low or high - b > _SEARCH:
                out.append(text[a:b])
                return
            middle -= self._count(text[window + found : high]) - self._per_call
            high = window + found
        out.append(text[a:low])
        out.append((text[low:high], middle, True, "", "", middle))
        out.append(text[high:b])

    def _sub_parts(
        self, sub: tuple[list[int], list[int]], text: str, a: int, b: int, out: list[Part]
    ) -> None:
        """Parts for ``text[a:b]`` inside one leaf that has sub-parts."""
        edges, sums = sub
        low, high = bisect_left(edges, a), bisect_right(edges, b) - 1
        if low >= high:
            out.append(text[a:b])
            return
        # An edge with the leaf's own text on both sides in the chunk is a split point
        # of the chunk's text: the run needs no head (tail) there. Otherwise (the chunk
        # starts or ends there, or it is the leaf's outer edge) certify one inside.
        inner_start = a < edges[low]
        inner_end = edges[high] < b
        run = text[edges[low] : edges[high]]
        count = self._run(sums, low, high)
        head, tail = "", ""
        if not inner_start:
            found = self._first(run) if self._first is not None else None
            if found is None:
                out.append(text[a:b])
                return
            head = run[:found]
        if not inner_end:
            found = self._last(run) if self._last is not None else None
            if found is None or found < len(head):
                out.append(text[a:b])
                return
            tail = run[found:]
        if inner_start:
            out.append(text[a : edges[low]])
        per_call = self._per_call
        middle = count - self._count(head) - self._count(tail) + 2 * per_call
        out.append((run, count, True, head, tail, middle))
        if inner_end:
            out.append(text[edges[high] : b])

    def _count(self, text: str) -> int:
        if not text:
            return self._per_call
        if len(text) > _MEMO_LIMIT:
            return self.tokenizer.count(text)
        found = self._memo.get(text)
        if found is None:
            found = self._memo[text] = self.tokenizer.count(text)
        return found

    def count_range(self, block: int, start: int, end: int) -> int:
        """Exactly ``count`` of display ``[start, end)`` of block ``block``."""
        parts: list[Part] = []
        self.block_parts(block, start, end, parts)
        return self.exact("", parts)

    def exact(self, prefix: str, parts: Sequence[Part]) -> int:
        """Exactly ``count(prefix + <parts joined>)``, re-encoding only around the joins.

        A prefix (a heading path) is prepared once per distinct text. A tokenizer without
        split-point hints gets one full count of the joined text instead.
        """
        if not parts:
            return self.tokenizer.count(prefix)
        if prefix:
            prepared = self._prefixes.get(prefix)
            if prepared is None:
                prepared = prepare_plain(self.tokenizer, [prefix], memo=self._memo)[0]
                self._prefixes[prefix] = prepared
            parts = [prepared, *parts]
        return count_prepared(self.tokenizer, parts, memo=self._memo)


def _sub_cuts(find: _Finder, text: str, start: int, end: int) -> list[int]:
    """Certified split points inside ``text[start:end]``, about ``SUB_PART`` apart."""
    cuts: list[int] = []
    position = start + SUB_PART
    while position < end - SUB_PART:
        # Searched in a slice starting one character early, so that the character
        # before a candidate is seen; a split point of a slice is one of the text.
        window = text[position - 1 : min(position - 1 + _SEARCH, end)]
        found = find(window)
        if found is None:
            position += _SEARCH - 1
            continue
        cut = position - 1 + found
        cuts.append(cut)
        position = cut + SUB_PART
    return cuts
