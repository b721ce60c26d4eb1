"""Counting helpers that take the fast path a tokenizer offers and fall back otherwise.

The packing engine calls these instead of probing tokenizers itself, so an arbitrary
``Tokenizer`` and a built-in one go through the same functions and produce the same
numbers; only the amount of re-encoding differs.

Exact joined counts work in two steps so that the per-part work is done once per leaf,
not once per candidate chunk: ``prepare_parts`` records, for each part, its count, its
*head* (the text before its first certified split point), its *tail* (from its last one)
and the count of what lies between; ``count_prepared`` then re-encodes only the windows
*tail + (parts without a split point) + head* around the joins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fastrag.exceptions import ConfigurationError
from fastrag.tokenization.protocol import Tokenizer

__all__ = ["PreparedPart", "count_joined", "count_many", "count_prepared", "prepare_parts"]


@dataclass(frozen=True, slots=True)
class PreparedPart:
    """One part of a joined text, with what ``count_prepared`` needs to reuse its count."""

    text: str
    """The part itself."""
    count: int
    """``tokenizer.count(text)``."""
    split: bool
    """Whether a split point was certified; without one the part is re-encoded whole."""
    head: str
    """``text`` before its first split point (all of ``text`` when ``split`` is false)."""
    tail: str
    """``text`` from its last split point (empty when ``split`` is false)."""
    middle: int | None
    """Count of the text between the first and last split points; ``None`` when empty."""


def count_many(tokenizer: Tokenizer, texts: Sequence[str]) -> list[int]:
    """Count every text: one batched call for a ``BatchTokenizer``, else one call each."""
    # getattr, not isinstance: a runtime_checkable check costs ~10 µs a call in 3.11 and
    # tests exactly this attribute's presence anyway.
    batch = getattr(tokenizer, "count_many", None)
    if batch is not None:
        counts: list[int] = batch(texts)
        return counts
    return [tokenizer.count(text) for text in texts]


def prepare_parts(
    tokenizer: Tokenizer, texts: Sequence[str], counts: Sequence[int] | None = None
) -> list[PreparedPart]:
    """Prepare parts for ``count_prepared``; ``counts[i]`` must be ``count(texts[i])``."""
    if counts is not None and len(counts) != len(texts):
        raise ConfigurationError(
            f"one count per part is needed (got {len(counts)} counts for {len(texts)} "
            f"parts); pass counts=None to have them computed"
        )
    known = count_many(tokenizer, texts) if counts is None else counts
    first_split = getattr(tokenizer, "first_split_point", None)
    last_split = getattr(tokenizer, "last_split_point", None)
    if first_split is None or last_split is None:
        return [
            PreparedPart(text, n, False, text, "", None)
            for text, n in zip(texts, known, strict=True)
        ]
    per_call = tokenizer.count("")
    prepared = []
    for text, part_count in zip(texts, known, strict=True):
        first: int | None = first_split(text) if text else None
        last: int | None = last_split(text) if first is not None else None
        if first is None or last is None or last < first:
            prepared.append(PreparedPart(text, part_count, False, text, "", None))
            continue
        head, tail = text[:first], text[last:]
        middle = None
        if last > first:
            # text = head + middle + tail, cut at two split points, so
            # count(text) = count(head) + count(middle) + count(tail) - 2 * per_call.
            middle = part_count - tokenizer.count(head) - tokenizer.count(tail) + 2 * per_call
        prepared.append(PreparedPart(text, part_count, True, head, tail, middle))
    return prepared


def count_prepared(tokenizer: Tokenizer, parts: Sequence[PreparedPart]) -> int:
    """Return exactly ``tokenizer.count("".join(part.text for part in parts))``.

    The joined text is cut at each part's certified split points; the windows between
    cuts are re-encoded and each part's middle reuses its count. This is exact by the
    split-point contract (see ``SplittableTokenizer``), not an estimate; parts prepared
    for a tokenizer without split points are simply joined and counted once.
    """
    if not any(part.split for part in parts):
        return tokenizer.count("".join(part.text for part in parts))
    per_call = tokenizer.count("")
    total = 0
    segments = 0
    window: list[str] = []
    for part in parts:
        if not part.split:
            window.append(part.text)
            continue
        window.append(part.head)
        total += tokenizer.count("".join(window))
        segments += 1
        if part.middle is not None:
            total += part.middle
            segments += 1
        window = [part.tail]
    total += tokenizer.count("".join(window))
    segments += 1
    # Each cut counted the per-call constant (e.g. [CLS]/[SEP]) once more; remove those.
    return total - (segments - 1) * per_call


def count_joined(
    tokenizer: Tokenizer, parts: Sequence[str], counts: Sequence[int] | None = None
) -> int:
    """Return exactly ``tokenizer.count("".join(parts))``, re-encoding as little as possible.

    ``counts[i]`` must be ``tokenizer.count(parts[i])`` (computed when omitted). A one-shot
    form of ``prepare_parts`` + ``count_prepared``; prepare once when the same parts take
    part in many candidate chunks.
    """
    return count_prepared(tokenizer, prepare_parts(tokenizer, parts, counts))
