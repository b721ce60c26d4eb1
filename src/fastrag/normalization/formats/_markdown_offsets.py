"""UTF-8 byte offsets to code-point offsets, without decoding the text per offset.

pulldown-cmark (through pyromark) reports ranges as UTF-8 byte offsets into the string
it parsed; the normalized tree needs code-point offsets. Converting each offset on its
own (``len(data[:offset].decode())``) is quadratic, and walking the text character by
character in Python costs more than parsing it. Two ways, both exact and C-bound:

* **Sparse** (most documents: a few non-ASCII characters among a lot of ASCII). A byte
  offset on a character boundary is its code-point offset plus the continuation bytes
  (``0x80``-``0xBF``) before it. The runs of continuation bytes are found once: 4 KiB
  blocks, then 64-byte slices of a block, that are ASCII are skipped by
  ``bytes.isascii`` (word at a time), and only the slices left are searched by regex
  (byte at a time, ~8 ns a byte: 1,671 of the 3,062 4 KiB blocks of the Node.js docs
  that are not all ASCII hold a non-ASCII byte, and searching them whole was most of
  the normalizer's offset work). Each offset subtracts the bytes of the runs that start
  before it (a bisection among its block's runs). Nothing per offset is kept: no set,
  no sorted copy, no table, which on 50 MB of Markdown were the normalizer's peak
  (1.8x the input).
* **Dense** (more non-ASCII characters than offsets to convert: CJK text, say). Every
  offset is collected, sorted once, and only the bytes *between* consecutive offsets
  are decoded, each byte once, into a table.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Iterable
from itertools import accumulate, chain
from typing import Final

__all__ = ["ByteToChar"]

_CONTINUATION_RUN: Final = re.compile(rb"[\x80-\xbf]+")
_SHIFT: Final = 12
_BLOCK: Final = 1 << _SHIFT
"""Bytes read by one ``isascii`` test before a block is searched for runs."""
_SLICE: Final = 64
"""Bytes of a non-ASCII block tested at a time; only non-ASCII slices are searched."""


class ByteToChar:
    """Maps byte offsets on character boundaries to code-point offsets, plus a constant base.

    ``base`` shifts every result: the parsed bytes may be a suffix of the document (after
    front matter), whose code points start at ``base`` in ``Document.content``.
    """

    __slots__ = ("_base", "_extra", "_first_run", "_run_starts", "_table")

    def __init__(self, base: int) -> None:
        """The identity (plus ``base``): for ASCII text a byte offset *is* a code-point
        offset."""
        self._base = base
        self._table: dict[int, int] | None = None
        self._run_starts: list[int] | None = None
        self._extra: list[int] = [0]
        self._first_run: list[int] = []

    @classmethod
    def sparse(cls, data: bytes, base: int, most: int) -> ByteToChar | None:
        """Any offset of ``data`` on a character boundary, from its continuation runs;
        ``None`` past ``most`` runs (``dense`` is then the cheaper way)."""
        mapper = cls(base)
        starts: list[int] = []
        lengths: list[int] = []
        first_run = mapper._first_run  # per block: how many runs start before it
        find = _CONTINUATION_RUN.finditer
        size = len(data)
        for block in range(0, size, _BLOCK):
            first_run.append(len(starts))
            end = min(block + _BLOCK, size)
            if data[block:end].isascii():
                continue
            for piece in range(block, end, _SLICE):
                if data[piece : piece + _SLICE].isascii():
                    continue
                # A run cut at a slice edge is two runs: no offset on a character
                # boundary falls between them, so the count before any offset is the same.
                for run in find(data, piece, min(piece + _SLICE, end)):
                    first, last = run.span()
                    starts.append(first)
                    lengths.append(last - first)
            if len(starts) > most:
                return None
        first_run += (len(starts), len(starts))  # the blocks of len(data) and after it
        mapper._run_starts = starts
        mapper._extra = [0, *accumulate(lengths)]
        return mapper

    @classmethod
    def dense(cls, data: bytes, offsets: Iterable[int], base: int) -> ByteToChar:
        """The offsets given (and only those), from a table. A list of offsets is emptied
        once read (it is the caller's scratch)."""
        mapper = cls(base)
        ordered = sorted(set(offsets))
        if isinstance(offsets, list):
            offsets.clear()  # peak memory: read, they go before the table is built
        # Offsets come from parser ranges and ASCII-whitespace trimming, so each lies on a
        # character boundary and every gap decodes cleanly. map() keeps the per-offset
        # work (slice, decode, count, running sum) in C: no bytecode per offset.
        gaps = map(data.__getitem__, map(slice, chain((0,), ordered), ordered))
        counts = accumulate(map(len, map(bytes.decode, gaps)))
        mapper._table = dict(zip(ordered, counts, strict=True))
        return mapper

    def __call__(self, offset: int) -> int:
        """The code-point offset (plus base) of a byte offset."""
        return self.many((offset,))[0]

    def close(self) -> None:
        """Drop the table once every offset is converted: for dense non-ASCII text it
        holds about the input's size, and the caller's frame keeps this object alive."""
        if self._table is not None:
            self._table = {}  # later lookups raise KeyError rather than answer wrongly

    def many(self, offsets: Iterable[int]) -> array[int]:
        """``array("q", map(self, offsets))``, without a Python call per offset.

        Machine ints: as a list, each converted offset was an int object of its own
        (32 bytes beside the list's 8), alive until the tree's columns are built.
        """
        base, table, starts = self._base, self._table, self._run_starts
        found: Iterable[int]
        if table is not None:
            found = map(table.__getitem__, offsets)
        elif starts:
            return array("q", self._sparse_many(offsets, starts))
        else:
            found = offsets
        return array("q", map(base.__add__, found) if base else found)

    def _sparse_many(self, offsets: Iterable[int], starts: list[int]) -> list[int]:
        """The sparse conversion, one compiled loop: native arithmetic per offset
        (a chain of ``map`` calls cost ~180 ns an offset, five C calls each)."""
        first, extra, base = self._first_run, self._extra, self._base
        converted: list[int] = []
        for offset in offsets:
            block = offset >> _SHIFT
            low, high = first[block], first[block + 1]
            if low < high:  # bisection within the offset's 4 KiB block's runs only
                low = bisect_left(starts, offset, low, high)
            converted.append(offset - extra[low] + base)
        return converted
