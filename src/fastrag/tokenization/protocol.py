"""What a tokenizer must offer (``Tokenizer``) and what it may offer for speed.

The packing engine needs three things from a tokenizer: an exact count of a *complete*
serialized text, offsets where text may be cut without splitting a code point, and a
stable identity for cache keys. That is ``Tokenizer``, and an arbitrary user object with
those three members is enough: the engine then recounts candidates exhaustively.

Two optional protocols let the engine avoid recounting (DESIGN.md, "Performance design"):

- ``BatchTokenizer.count_many`` counts many leaf texts in one call;
- ``SplittableTokenizer`` certifies *split points*: offsets where a count is additive no
  matter what text surrounds it, so the exact count of a chunk joined from already-counted
  parts is the sum of the parts' counts corrected by re-encoding only small windows around
  the joins (``fastrag.tokenization.counting.count_joined``).

Use ``isinstance(tokenizer, BatchTokenizer)`` etc.: all three are ``runtime_checkable``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

__all__ = ["BatchTokenizer", "SplittableTokenizer", "Tokenizer"]


@runtime_checkable
class Tokenizer(Protocol):
    """Exact counting and lossless Unicode boundaries, with cache identity.

    ``identity`` is a stable, nonsecret string that changes whenever counts could change
    (it is part of every chunk id and cache key). ``count`` returns a nonnegative integer
    for a complete serialized text; counts need not be additive or monotonic.
    ``boundaries`` returns ordered offsets, in Unicode code points, including ``0`` and
    ``len(text)``, at which the text may be cut.
    """

    @property
    def identity(self) -> str:
        """Stable nonsecret name of everything that determines the counts."""
        ...

    def count(self, text: str) -> int:
        """Count complete serialized text; counts need not be additive."""
        ...

    def boundaries(self, text: str) -> Sequence[int]:
        """Return ordered safe offsets including zero and the final offset."""
        ...


@runtime_checkable
class BatchTokenizer(Tokenizer, Protocol):
    """A tokenizer that counts many texts in one call.

    ``count_many(texts)[i] == count(texts[i])`` for every ``i``, always; the batch form
    only amortizes per-call overhead (and may use native threads).
    """

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Count each text exactly as ``count`` would, in order."""
        ...


@runtime_checkable
class SplittableTokenizer(Tokenizer, Protocol):
    """A tokenizer that certifies split points, so joined counts can be corrected locally.

    An offset ``c`` with ``0 < c < len(text)`` is a *split point* of ``text`` when, for
    every ``0 <= a < c < b <= len(text)`` (any piece of ``text`` around ``c``) and every
    prefix ``p`` and suffix ``s``::

        count(p + text[a:b] + s) == count(p + text[a:c]) + count(text[c:b] + s) - count("")

    ``count("")`` is the per-call constant (special tokens a model adds once per text; 0
    for the built-in tokenizers by default). The property holds whatever surrounds ``c``
    (it is local, as a pre-tokenizer's pieces are), which is what lets the engine count a
    chunk from already-counted parts: only the text between the last split point of one
    part and the first split point of the next needs re-encoding.

    Both methods may be conservative (miss real split points; return ``None`` when none
    is certified) but must never return an offset that is not a split point. A tokenizer
    whose configuration it cannot analyse simply returns ``None`` everywhere and the
    engine recounts whole texts.
    """

    def first_split_point(self, text: str) -> int | None:
        """The smallest certified split point of ``text``, or ``None``."""
        ...

    def last_split_point(self, text: str) -> int | None:
        """The largest certified split point of ``text``, or ``None``."""
        ...
