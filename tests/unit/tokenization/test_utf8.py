"""``Utf8ByteTokenizer``: exact UTF-8 byte counts; boundaries never split a code point."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.tokenization import Utf8ByteTokenizer

from .strategies import texts

TOKENIZER = Utf8ByteTokenizer()
ALL_TEXT = st.one_of(texts, st.text(max_size=200))


def test_identity_is_the_documented_constant() -> None:
    assert Utf8ByteTokenizer.identity == "utf8-bytes:v1"
    assert TOKENIZER.identity == "utf8-bytes:v1"


@settings(max_examples=200, deadline=None)
@given(text=ALL_TEXT)
def test_count_is_the_utf8_length(text: str) -> None:
    assert TOKENIZER.count(text) == len(text.encode("utf-8"))


@settings(max_examples=200, deadline=None)
@given(text=ALL_TEXT)
def test_boundaries_are_every_code_point_offset(text: str) -> None:
    boundaries = list(TOKENIZER.boundaries(text))
    assert boundaries[0] == 0
    assert boundaries[-1] == len(text)
    assert boundaries == sorted(set(boundaries))
    assert boundaries == list(range(len(text) + 1))
    # Cutting at any boundary re-encodes to the same bytes: no code point is split.
    for offset in boundaries:
        left, right = text[:offset].encode("utf-8"), text[offset:].encode("utf-8")
        assert left + right == text.encode("utf-8")


def test_multibyte_characters_cost_their_bytes() -> None:
    assert TOKENIZER.count("") == 0
    assert TOKENIZER.count("abc") == 3
    assert TOKENIZER.count("é") == 2
    assert TOKENIZER.count("中") == 3
    assert TOKENIZER.count("😀") == 4
    assert TOKENIZER.count_many(["abc", "é", "😀", ""]) == [3, 2, 4, 0]


def test_surrogates_count_conservatively_and_never_raise() -> None:
    assert TOKENIZER.count("\ud800") == 3
    assert TOKENIZER.count("\ud83d\ude00") == 6  # >= the 4 bytes of the emoji they spell
    assert TOKENIZER.count_many(["a\udfffb"]) == [5]
    assert list(TOKENIZER.boundaries("a\ud800")) == [0, 1, 2]


@settings(max_examples=100, deadline=None)
@given(text=ALL_TEXT, data=st.data())
def test_counts_are_additive(text: str, data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(text)))
    assert TOKENIZER.count(text) == TOKENIZER.count(text[:cut]) + TOKENIZER.count(text[cut:])


def test_split_points() -> None:
    assert TOKENIZER.first_split_point("abc") == 1
    assert TOKENIZER.last_split_point("abc") == 2
    assert TOKENIZER.first_split_point("a") is None
    assert TOKENIZER.last_split_point("") is None


def test_value_semantics_and_pickling() -> None:
    clone = pickle.loads(pickle.dumps(TOKENIZER))
    assert clone == TOKENIZER
    assert hash(clone) == hash(TOKENIZER)
    assert repr(clone) == "Utf8ByteTokenizer()"
    assert TOKENIZER != "utf8-bytes:v1"
