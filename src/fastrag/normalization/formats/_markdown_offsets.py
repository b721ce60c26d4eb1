"""UTF-8 byte offsets to code-point offsets, in one linear pass.

pulldown-cmark (through pyromark) reports ranges as UTF-8 byte offsets into the string
it parsed; the normalized tree needs code-point offsets. Converting each offset on its
own (``len(data[:offset].decode())``) is quadratic, and walking the text character by
character in Python costs more than parsing it. Instead every offset the tree needs is
collected, sorted once, and only the bytes *between* consecutive offsets are decoded:
each byte is decoded exactly once, by C code.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from itertools import accumulate, chain

__all__ = ["ByteToChar"]


class ByteToChar:
    """Maps the byte offsets it was built from to code-point offsets, plus a constant base.

    ``base`` shifts every result: the parsed bytes may be a suffix of the document (after
    front matter), whose code points start at ``base`` in ``Document.content``.
    A list of offsets is emptied once read (it is the caller's scratch).
    """

    __slots__ = ("_base", "_table")

    def __init__(self, data: bytes, offsets: Iterable[int], *, ascii_only: bool, base: int) -> None:
        self._base = base
        # None means "identity": for ASCII text a byte offset *is* a code-point offset.
        self._table: dict[int, int] | None = None
        if ascii_only:
            return
        ordered = sorted(set(offsets))
        if isinstance(offsets, list):
            # Peak memory (large non-ASCII Markdown): the offsets, read, go before the
            # table is built beside the sorted copy.
            offsets.clear()
        # Offsets come from parser ranges and ASCII-whitespace trimming, so each lies on a
        # character boundary and every gap decodes cleanly. map() keeps the per-offset
        # work (slice, decode, count, running sum) in C: no bytecode per offset.
        gaps = map(data.__getitem__, map(slice, chain((0,), ordered), ordered))
        counts = accumulate(map(len, map(bytes.decode, gaps)))
        self._table = dict(zip(ordered, counts, strict=True))

    def __call__(self, offset: int) -> int:
        """The code-point offset (plus base) of a byte offset given at construction."""
        if self._table is None:
            return offset + self._base
        return self._table[offset] + self._base

    def close(self) -> None:
        """Drop the table once every offset is converted: for non-ASCII text it holds
        about the input's size, and the caller's frame keeps this object alive."""
        if self._table is not None:
            self._table = {}  # later lookups raise KeyError rather than answer wrongly

    def many(self, offsets: Iterable[int]) -> array[int]:
        """``array("q", map(self, offsets))``, without a Python call per offset.

        Machine ints: as a list, each converted offset was an int object of its own
        (32 bytes beside the list's 8), alive until the tree's columns are built.
        """
        base, table = self._base, self._table
        if table is None:
            return array("q", map(base.__add__, offsets) if base else offsets)
        if base:
            return array("q", map(base.__add__, map(table.__getitem__, offsets)))
        return array("q", map(table.__getitem__, offsets))
