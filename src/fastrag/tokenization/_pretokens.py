"""Exact cl100k counts from pre-tokens, without re-running the BPE on repeated text.

tiktoken encodes a text by cutting it into *pre-tokens* with its pattern and running BPE
on each pre-token separately, so ``len(encode_ordinary(text))`` is the sum, over the
pre-tokens of ``text``, of each pre-token's own token count. Real documents repeat their
pre-tokens (words with their leading space, punctuation runs, indentation) over and
over, so once each distinct pre-token's count is known a count is one C-level regex pass
plus dictionary look-ups: about half the cost of ``encode_ordinary`` on the same text,
and the per-call overhead of the native encoder disappears for short texts.

The pattern below is ``CL100K_PATTERN`` for Python's ``re`` (3.11+: possessive
quantifiers), restricted to text whose characters all lie in ``SAFE`` (ASCII, Latin,
Greek, Cyrillic, general punctuation, box drawing …). On such text ``\\p{L}``, ``\\p{N}``
and ``\\s`` (Unicode White_Space) are exactly the classes spelled out below — spelled
out because Python's own ``\\s`` also matches ``\\x1c``–``\\x1f`` and Python has no
``\\p{…}``; ``$`` (end of text in Rust's regex) is ``\\Z``; the case-insensitive
contractions are spelled out, with ``ſ``, which folds to ``s``. Alternatives are tried in
the same order with the same leftmost-first backtracking semantics as tiktoken's
``fancy_regex``, so the pieces are the same. Any other text goes to ``encode_ordinary``
unchanged: outside long-stable blocks, Python's Unicode tables need not match the Rust
crate's. Tests compare this counter with ``encode_ordinary`` on real documents, on every
``SAFE`` character in many contexts, and on generated text.

Where it is built, ``_cl100k_count`` counts ``SAFE`` text instead: the same pattern and
memo in C, without a Python string per pre-token (about six times faster than the regex
path below, which stays for builds without a C compiler and under
``FASTRAG_PURE_PYTHON=1``; tests compare the two). It also prepares non-ASCII ``SAFE``
text, which the regex path leaves to ``prepare_parts``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final, Protocol

from fastrag._pure import sources_preferred
from fastrag.tokenization.counting import Prepared

__all__ = ["BACKWARD_SCAN", "PreTokenCounter", "native_available"]

# Character classes of cl100k's pattern, spelled out for the characters of ``SAFE``
# (generated from Unicode 14 categories; stable, long-assigned blocks): ``\p{L}`` (all
# letter categories), ``\p{N}`` (Nd, Nl, No) and ``\s`` (the White_Space property).
_L: Final = (
    "A-Za-z\u00aa\u00b5\u00ba\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u0370-\u0374"
    "\u0376-\u0377\u037a-\u037d\u037f\u0386\u0388-\u038a\u038c\u038e-\u03a1"
    "\u03a3-\u03f5\u03f7-\u0481\u048a-\u04ff"
)
_N: Final = "0-9\u00b2-\u00b3\u00b9\u00bc-\u00be"
_S: Final = "\t\n\x0b\x0c\r \u0085\u00a0\u2000-\u200a\u2028-\u2029\u202f\u205f"
SAFE: Final = (
    "\x00-\u024f\u0370-\u0377\u037a-\u037f\u0384-\u038a\u038c\u038e-\u03a1"
    "\u03a3-\u04ff\u2000-\u2064\u2066-\u206f\u2190-\u21ff\u2500-\u259f"
)
"""Characters the fast path handles: ASCII, Latin-1, Latin Extended-A/B, Greek and Coptic,
Cyrillic, General Punctuation, Arrows, Box Drawing and Block Elements — every assigned
code point of those blocks (unassigned ones could change class in a later Unicode)."""
_UNSAFE: Final = re.compile(f"[^{SAFE}]")
CL100K_SAFE: Final = re.compile(
    "'(?:[sdmtSDMT\u017f]|[lL][lL]|[vV][eE]|[rR][eE])"
    f"|[^\r\n{_L}{_N}]?+[{_L}]++"
    f"|[{_N}]{{1,3}}+"
    f"| ?[^{_S}{_L}{_N}]++[\r\n]*+"
    f"|[{_S}]++\\Z"
    f"|[{_S}]*[\r\n]"
    f"|[{_S}]+(?![^{_S}])"
    f"|[{_S}]"
)
"""cl100k_base's pre-tokenizer for text made of ``SAFE`` characters (see the module
docstring)."""

BACKWARD_SCAN: Final = 128
"""Characters from a text's end within which ``last_split_point`` tries every offset
(before them, only its candidates regex's; see ``tiktoken._CutRule.last``)."""

_LETTERS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_NEWLINES: Final = "\r\n"
_ISSPACE: Final = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "
"""ASCII characters for which ``str.isspace`` holds (what ``_cl100k_cut`` consults)."""

_PIECE_LIMIT: Final = 64
"""Longest pre-token whose count is remembered (long ones, e.g. a run of ``=``, are rare)."""
_MEMO_ENTRIES: Final = 1 << 16
"""Entries after which the memo starts over: bounds memory on hostile input (every
pre-token distinct) at a few MB, while a real document set keeps a few tens of
thousands of distinct pre-tokens."""


class _Native(Protocol):
    """``_cl100k_count.Cl100kCounter``'s interface."""

    def count(self, text: str) -> int | None: ...
    def prepare_many(self, texts: Sequence[str]) -> list[Prepared | None]: ...


_CLASS_BITS: Final = (
    (1, f"[{_L}]"),  # \p{L}
    (2, f"[{_N}]"),  # \p{N}
    (4, f"[{_S}]"),  # \s
    (8, "[\r\n]"),
    (64, "[\\W\\d_]"),  # may follow a letter at a split point the candidates regex finds
    (128, f"[{SAFE}]"),
)
"""Bits of the C counter's class table (its enum) given by patterns; 16 (``str.isspace``)
and 32 (``str.isalpha``), for split points, are the ``str`` methods'."""
_TABLE_SIZE: Final = 0x2600
"""Code points the class table covers: every ``SAFE`` one (the last is U+259F)."""


_TABLES: list[bytes] = []
"""``class_table()``'s result, once built (a few ms)."""


def class_table() -> bytes:
    """The C counter's character classes: one byte of bits per code point below
    ``_TABLE_SIZE``, from this module's classes and ``str``'s own (see ``_cl100k_count.c``).
    """
    if not _TABLES:
        _TABLES.append(_build_class_table())
    return _TABLES[0]


def _build_class_table() -> bytes:
    patterns = [(bit, re.compile(pattern)) for bit, pattern in _CLASS_BITS]
    table = bytearray(_TABLE_SIZE)
    for code in range(_TABLE_SIZE):
        char = chr(code)
        bits = (16 if char.isspace() else 0) | (32 if char.isalpha() else 0)
        for bit, pattern in patterns:
            if pattern.match(char) is not None:
                bits |= bit
        table[code] = bits
    return bytes(table)


def _native_counter() -> Callable[[Callable[[bytes], Sequence[int]]], _Native] | None:
    """A factory of ``_cl100k_count.Cl100kCounter``s, if the module is built and the
    sources are not asked for."""
    if sources_preferred():
        return None
    try:
        from fastrag.tokenization._cl100k_count import Cl100kCounter
    except ImportError:  # a build without a C compiler: the regex path counts the same
        return None
    classes = class_table()
    return lambda encode_piece: Cl100kCounter(encode_piece, classes, BACKWARD_SCAN)


def native_available() -> bool:
    """Whether ``SAFE`` text is counted by the C module (``_cl100k_count``)."""
    return _native_counter() is not None


class _Memo(dict[str, int]):
    """Pre-token -> token count; a miss runs BPE on that one pre-token."""

    __slots__ = ("_encode",)

    def __init__(self, encode_piece: Callable[[bytes], Sequence[int]]) -> None:
        super().__init__()
        self._encode = encode_piece

    def __missing__(self, piece: str) -> int:
        count = len(self._encode(piece.encode("utf-8")))
        if len(piece) <= _PIECE_LIMIT:
            if len(self) >= _MEMO_ENTRIES:
                self.clear()
            self[piece] = count
        return count


class PreTokenCounter:
    """``len(encode_ordinary(text))`` for cl100k_base, by pre-tokens when ``text`` is ``SAFE``.

    ``encode_ordinary`` is the encoding's own; ``encode_piece`` its single-pre-token BPE
    (``CoreBPE.encode_single_piece``: the same function ``encode_ordinary`` applies to
    each pre-token). The memo only saves work: every count is the encoder's.
    """

    __slots__ = ("_encode", "_findall", "_get", "_native")

    def __init__(
        self,
        encode_ordinary: Callable[[str], Sequence[int]],
        encode_piece: Callable[[bytes], Sequence[int]],
        *,
        native: bool = True,
    ) -> None:
        """``native=False`` keeps the regex path (tests compare the two)."""
        self._encode = encode_ordinary
        self._findall = CL100K_SAFE.findall
        self._get = _Memo(encode_piece).__getitem__
        factory = _native_counter() if native else None
        self._native: _Native | None = factory(encode_piece) if factory is not None else None

    def count(self, text: str) -> int:
        if self._native is not None:
            counted = self._native.count(text)
            return counted if counted is not None else len(self._encode(text))
        if text.isascii() or _UNSAFE.search(text) is None:
            return sum(map(self._get, self._findall(text)))
        return len(self._encode(text))

    def count_many(self, texts: Sequence[str]) -> list[int]:
        if self._native is not None:
            count = self.count
            return [count(text) for text in texts]
        get, findall, encode, unsafe = self._get, self._findall, self._encode, _UNSAFE.search
        return [
            sum(map(get, findall(text)))
            if text.isascii() or unsafe(text) is None
            else len(encode(text))
            for text in texts
        ]

    def prepare_many(self, texts: Sequence[str]) -> list[Prepared | None]:
        """``prepare_parts`` of each text the C module counts (``SAFE`` text) or, without
        it, of each ASCII text (see ``_prepare_many``); ``None`` for the rest."""
        if self._native is not None:
            return self._native.prepare_many(texts)
        return self._prepare_many(texts)

    def _prepare_many(self, texts: Sequence[str]) -> list[Prepared | None]:
        """``prepare_parts`` of each ASCII text from its pre-tokens; ``None`` for the rest.

        The result equals ``prepare_parts(tokenizer, [text])[0]`` for the tokenizer's
        cut rule (``_cl100k_cut``): its first and last split points, head, tail and
        middle count. Every split point of ASCII text is a pre-token boundary (a letter
        run's piece ends at its last letter; a piece holding a newline ends at its last
        newline), so both are found by looking at the few pre-tokens at each end, and
        the head's (tail's) count is the sum of the counts of the pre-tokens before
        (after) it: no piece crosses a split point and none looks past it, so the head
        alone has exactly those pre-tokens. Nothing is encoded twice.
        """
        get, findall = self._get, self._findall
        letters, newlines, spaces = _LETTERS, _NEWLINES, _ISSPACE
        prepared: list[Prepared | None] = []
        append = prepared.append
        for text in texts:
            if not text.isascii():
                append(None)
                continue
            pieces = findall(text)
            size = len(pieces)
            total = sum(map(get, pieces))
            # The first split point (``_cl100k_cut``, inlined: this loop runs per leaf).
            first = 0
            before = pieces[0][-1] if size else ""
            for index in range(1, size):
                after = pieces[index][0]
                if (before in letters and after not in letters) or (
                    before in newlines and after not in spaces
                ):
                    first = index
                    break
                before = pieces[index][-1]
            if not first:
                append((text, total, False, text, "", None))
                continue
            last = first  # the last split point, from the end; ``first`` is one
            after = pieces[-1][0]
            for index in range(size - 1, first, -1):
                before = pieces[index - 1][-1]
                if (before in letters and after not in letters) or (
                    before in newlines and after not in spaces
                ):
                    last = index
                    break
                after = before if len(pieces[index - 1]) == 1 else pieces[index - 1][0]
            # The few pieces at each end, by index: no list slice per leaf.
            head_end = head = 0
            for index in range(first):
                head_end += len(pieces[index])
                head += get(pieces[index])
            tail_start, tail = len(text), 0
            for index in range(last, size):
                tail_start -= len(pieces[index])
                tail += get(pieces[index])
            append(
                (
                    text,
                    total,
                    True,
                    text[:head_end],
                    text[tail_start:],
                    total - head - tail if last > first else None,
                )
            )
        return prepared
