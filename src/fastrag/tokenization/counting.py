"""Counting helpers that take the fast path a tokenizer offers and fall back otherwise.

The packing engine calls these instead of probing tokenizers itself, so an arbitrary
``Tokenizer`` and a built-in one go through the same functions and produce the same
numbers; only the amount of re-encoding differs.

Exact joined counts work in two steps so that the per-part work is done once per leaf,
not once per candidate chunk: ``prepare_parts`` records, for each part, its count, its
*head* (the text before its first certified split point), its *tail* (from its last one)
and the count of what lies between; ``count_prepared`` then re-encodes only the windows
*tail + (parts without a split point) + head* around the joins.

Both accept an optional ``memo`` (text -> count) shared across calls: heads, tails and
join windows repeat a lot in real documents (``".\n\n#"``, ``"The"``), so a caller that
counts many chunks of one document looks most of them up instead of re-encoding them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from fastrag.exceptions import ConfigurationError
from fastrag.tokenization.protocol import Tokenizer

__all__ = [
    "Prepared",
    "PreparedPart",
    "count_and_prepare",
    "count_joined",
    "count_many",
    "count_prepared",
    "prepare_parts",
    "prepare_plain",
]

_MEMO_LIMIT: Final = 128
"""Longest text a ``memo`` records."""


class PreparedPart(NamedTuple):
    """One part of a joined text, with what ``count_prepared`` needs to reuse its count.

    A named tuple: immutable, and cheap to build (the packer prepares every leaf of a
    document; a frozen dataclass cost it several times more per part).
    """

    text: str
    """The part itself."""
    count: int  # type: ignore[assignment]  # a field; shadowing tuple.count is intended
    """``tokenizer.count(text)``."""
    split: bool
    """Whether a split point was certified; without one the part is re-encoded whole."""
    head: str
    """``text`` before its first split point (all of ``text`` when ``split`` is false)."""
    tail: str
    """``text`` from its last split point (empty when ``split`` is false)."""
    middle: int | None
    """Count of the text between the first and last split points; ``None`` when empty."""


Prepared = tuple[str, int, bool, str, str, int | None]
"""A ``PreparedPart``'s fields as a plain tuple, in the same order: what the packer keeps
per leaf. The collector stops tracking a plain tuple of strings and numbers at the first
collection it survives; a named tuple is a subclass, tracked for good, so one per leaf
was promoted to the oldest generation and made its full collections more frequent.
Every function here accepts a ``PreparedPart`` wherever it takes a ``Prepared``."""


def count_many(tokenizer: Tokenizer, texts: Sequence[str]) -> list[int]:
    """Count every text: one batched call for a ``BatchTokenizer``, else one call each."""
    # getattr, not isinstance: a runtime_checkable check costs ~10 µs a call in 3.11 and
    # tests exactly this attribute's presence anyway.
    batch = getattr(tokenizer, "count_many", None)
    if batch is not None:
        counts: list[int] = batch(texts)
        return counts
    return [tokenizer.count(text) for text in texts]


def _memo_count(tokenizer: Tokenizer, memo: dict[str, int] | None, text: str) -> int:
    """``tokenizer.count(text)``, looked up in (and recorded into) ``memo`` when given.

    Only short texts are memoized: they are the ones that repeat, and a long window
    (a part without split points) would cost a hash and memory for nothing.
    """
    if memo is None or len(text) > _MEMO_LIMIT:
        return tokenizer.count(text)
    found = memo.get(text)
    if found is None:
        found = memo[text] = tokenizer.count(text)
    return found


def prepare_parts(
    tokenizer: Tokenizer,
    texts: Sequence[str],
    counts: Sequence[int] | None = None,
    *,
    memo: dict[str, int] | None = None,
) -> list[PreparedPart]:
    """Prepare parts for ``count_prepared``; ``counts[i]`` must be ``count(texts[i])``.

    ``memo`` (see the module docstring) caches the counts of heads and tails.
    """
    return [PreparedPart(*part) for part in prepare_plain(tokenizer, texts, counts, memo=memo)]


def prepare_plain(
    tokenizer: Tokenizer,
    texts: Sequence[str],
    counts: Sequence[int] | None = None,
    *,
    memo: dict[str, int] | None = None,
) -> list[Prepared]:
    """``prepare_parts`` as plain tuples (``Prepared``), for callers that keep many."""
    if counts is not None and len(counts) != len(texts):
        raise ConfigurationError(
            f"one count per part is needed (got {len(counts)} counts for {len(texts)} "
            f"parts); pass counts=None to have them computed"
        )
    known = count_many(tokenizer, texts) if counts is None else counts
    first_split = getattr(tokenizer, "first_split_point", None)
    last_split = getattr(tokenizer, "last_split_point", None)
    if first_split is None or last_split is None:
        return [(text, n, False, text, "", None) for text, n in zip(texts, known, strict=True)]
    per_call = _memo_count(tokenizer, memo, "")
    prepared: list[Prepared] = []
    for text, part_count in zip(texts, known, strict=True):
        first: int | None = first_split(text) if text else None
        last: int | None = last_split(text) if first is not None else None
        if first is None or last is None or last < first:
            prepared.append((text, part_count, False, text, "", None))
            continue
        head, tail = text[:first], text[last:]
        middle = None
        if last > first:
            # text = head + middle + tail, cut at two split points, so
            # count(text) = count(head) + count(middle) + count(tail) - 2 * per_call.
            middle = (
                part_count
                - _memo_count(tokenizer, memo, head)
                - _memo_count(tokenizer, memo, tail)
                + 2 * per_call
            )
        prepared.append((text, part_count, True, head, tail, middle))
    return prepared


def count_and_prepare(
    tokenizer: Tokenizer, texts: Sequence[str], *, memo: dict[str, int] | None = None
) -> list[Prepared]:
    """``prepare_parts(tokenizer, texts, memo=memo)``, counts included, by the fastest route.

    A tokenizer that prepares parts itself (``TiktokenTokenizer`` on text of common
    scripts: counts, split points and head/tail counts from one pre-token pass, see
    ``_pretokens``) does so for the texts it can; the rest take ``prepare_parts``. The
    parts are the same either way.
    """
    fast = getattr(tokenizer, "_prepare_many", None)
    if fast is None:
        return prepare_plain(tokenizer, texts, memo=memo)
    found: list[Prepared | None] = fast(texts)
    missing = [index for index, part in enumerate(found) if part is None]
    if missing:
        filled = prepare_plain(tokenizer, [texts[index] for index in missing], memo=memo)
        for index, part in zip(missing, filled, strict=True):
            found[index] = part
    return [part for part in found if part is not None]


def count_prepared(
    tokenizer: Tokenizer,
    parts: Sequence[Prepared | str],
    *,
    memo: dict[str, int] | None = None,
) -> int:
    """Return exactly ``tokenizer.count(<the parts' texts joined>)``.

    A plain ``str`` part stands for text whose count is not known (a piece cut out of a
    prepared part, a separator): it is re-encoded with the window it falls in.

    The joined text is cut at each part's certified split points; the windows between
    cuts are re-encoded and each part's middle reuses its count. This is exact by the
    split-point contract (see ``SplittableTokenizer``), not an estimate; parts prepared
    for a tokenizer without split points are simply joined and counted once. ``memo``
    (see the module docstring) caches the counts of the re-encoded windows.
    """
    # Plain tuples (``Prepared``) are read by position: text 0, split 2, head 3, tail 4,
    # middle 5.
    if not any(not isinstance(part, str) and part[2] for part in parts):
        return tokenizer.count("".join(_text(part) for part in parts))
    per_call = _memo_count(tokenizer, memo, "")
    total = 0
    segments = 0
    window: list[str] = []
    for part in parts:
        if isinstance(part, str):
            window.append(part)
            continue
        if not part[2]:
            window.append(part[0])
            continue
        window.append(part[3])
        total += _memo_count(tokenizer, memo, "".join(window))
        segments += 1
        middle = part[5]
        if middle is not None:
            total += middle
            segments += 1
        window = [part[4]]
    total += _memo_count(tokenizer, memo, "".join(window))
    segments += 1
    # Each cut counted the per-call constant (e.g. [CLS]/[SEP]) once more; remove those.
    return total - (segments - 1) * per_call


def _text(part: Prepared | str) -> str:
    return part if isinstance(part, str) else part[0]


def count_joined(
    tokenizer: Tokenizer, parts: Sequence[str], counts: Sequence[int] | None = None
) -> int:
    """Return exactly ``tokenizer.count("".join(parts))``, re-encoding as little as possible.

    ``counts[i]`` must be ``tokenizer.count(parts[i])`` (computed when omitted). A one-shot
    form of ``prepare_parts`` + ``count_prepared``; prepare once when the same parts take
    part in many candidate chunks.
    """
    return count_prepared(tokenizer, prepare_parts(tokenizer, parts, counts))
