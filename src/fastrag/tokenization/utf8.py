"""``Utf8ByteTokenizer``: a dependency-free byte budget, exact and additive by construction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

__all__ = ["Utf8ByteTokenizer"]


class Utf8ByteTokenizer:
    """Explicit offline byte budget, not an embedding-model token estimate.

    A "token" is one byte of the text's UTF-8 encoding. That makes limits byte limits: a
    budget of 160 holds 160 ASCII characters but only 40 emoji. It needs no optional
    dependency, so the base install can chunk text and HTML with it; choose it explicitly
    when a byte bound is what you want (a store's field size, a wire limit).

    Counts are additive (the count of a join is the sum of the counts), so every interior
    offset is a split point and every code-point offset is a boundary.
    """

    __slots__ = ()

    identity: Final = "utf8-bytes:v1"

    def count(self, text: str) -> int:
        """Count bytes, conservatively including multibyte Unicode.

        A surrogate code point (possible in a Python ``str``, impossible in UTF-8) counts
        as the 3 bytes ``surrogatepass`` gives it, so a pair costs 6, never less than the 4
        bytes of the character it stands for: a count never undershoots and never raises.
        """
        if text.isascii():  # O(1) in CPython: a flag on the string object
            return len(text)
        return len(text.encode("utf-8", "surrogatepass"))

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Count each text as ``count`` does."""
        return [
            len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
            for text in texts
        ]

    def boundaries(self, text: str) -> Sequence[int]:
        """Never split a Unicode code point: every code-point offset is a boundary."""
        return range(len(text) + 1)

    def first_split_point(self, text: str) -> int | None:
        """Byte counts are additive, so offset 1 is a split point of any longer text."""
        return 1 if len(text) > 1 else None

    def last_split_point(self, text: str) -> int | None:
        """Byte counts are additive, so ``len(text) - 1`` is a split point too."""
        return len(text) - 1 if len(text) > 1 else None

    def __repr__(self) -> str:
        return "Utf8ByteTokenizer()"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Utf8ByteTokenizer):
            return NotImplemented
        return True

    def __hash__(self) -> int:
        return hash(self.identity)
