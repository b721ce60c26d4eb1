"""UTF-8 byte offsets to code-point offsets, in one linear pass.

pulldown-cmark (through pyromark) reports ranges as UTF-8 byte offsets into the string
it parsed; the normalized tree needs code-point offsets. Converting each offset on its
own (``len(data[:offset].decode())``) is quadratic, and walking the text character by
character in Python costs more than parsing it. Instead every offset the tree needs is
collected, sorted once, and only the bytes *between* consecutive offsets are decoded:
each byte is decoded exactly once, by C code.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import accumulate

__all__ = ["ByteToChar"]


class ByteToChar:
    """Maps the byte offsets it was built from to code-point offsets, plus a constant base.

    ``base`` shifts every result: the parsed bytes may be a suffix of the document (after
    front matter), whose code points start at ``base`` in ``Document.content``.
    """

    __slots__ = ("_base", "_table")

    def __init__(self, data: bytes, offsets: Iterable[int], *, ascii_only: bool, base: int) -> None:
        self._base = base
        # None means "identity": for ASCII text a byte offset *is* a code-point offset.
        self._table: dict[int, int] | None = None
        if ascii_only:
            return
        ordered = sorted(set(offsets))
        # Offsets come from parser ranges and ASCII-whitespace trimming, so each lies on a
        # character boundary and every gap decodes cleanly. map() keeps the per-offset
        # work (slice, decode, count, running sum) in C: no bytecode per offset.
        gaps = map(data.__getitem__, map(slice, [0, *ordered], ordered))
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

    def many(self, offsets: list[int]) -> list[int]:
        """``[self(offset) for offset in offsets]``, without a Python call per offset."""
        base, table = self._base, self._table
        if table is None:
            return list(map(base.__add__, offsets)) if base else offsets
        if base:
            return list(map(base.__add__, map(table.__getitem__, offsets)))
        return list(map(table.__getitem__, offsets))
