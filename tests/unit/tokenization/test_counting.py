"""``count_many`` / ``count_joined`` with tokenizers that offer no fast path, or their own."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.exceptions import ConfigurationError
from fastrag.tokenization import (
    BatchTokenizer,
    PreparedPart,
    SplittableTokenizer,
    TiktokenTokenizer,
    Tokenizer,
    count_joined,
    count_many,
    count_prepared,
    prepare_parts,
)
from fastrag.tokenization.counting import count_and_prepare, prepare_plain

from .strategies import texts


class WordTokenizer:
    """A custom tokenizer as a user would write one: whitespace-separated words, no hints."""

    identity = "words:v1"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def count(self, text: str) -> int:
        self.calls.append(text)
        return len(text.split())

    def boundaries(self, text: str) -> Sequence[int]:
        return range(len(text) + 1)


class FramedWordTokenizer(WordTokenizer):
    """Words plus a 3-token frame per call, certifying whitespace as split points.

    Exercises the per-call constant in ``count_joined``: splitting a text in two adds one
    frame, which the helper must subtract again.
    """

    identity = "framed-words:v1"

    def count(self, text: str) -> int:
        return super().count(text) + 3

    def first_split_point(self, text: str) -> int | None:
        for offset in range(1, len(text)):
            if text[offset].isspace():
                return offset
        return None

    def last_split_point(self, text: str) -> int | None:
        for offset in range(len(text) - 1, 0, -1):
            if text[offset].isspace():
                return offset
        return None


def test_a_plain_custom_tokenizer_is_a_tokenizer_without_fast_paths() -> None:
    tokenizer = WordTokenizer()
    assert isinstance(tokenizer, Tokenizer)
    assert not isinstance(tokenizer, BatchTokenizer)
    assert not isinstance(tokenizer, SplittableTokenizer)
    assert isinstance(FramedWordTokenizer(), SplittableTokenizer)


def test_count_many_falls_back_to_count() -> None:
    tokenizer = WordTokenizer()
    assert count_many(tokenizer, ["a b", "", "c d e"]) == [2, 0, 3]
    assert tokenizer.calls == ["a b", "", "c d e"]


def test_count_joined_without_hints_counts_the_whole_join_once() -> None:
    tokenizer = WordTokenizer()
    assert count_joined(tokenizer, ["ab", "cd ", "ef"], [1, 1, 1]) == 2
    assert tokenizer.calls == ["abcd ef"]


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(st.one_of(texts, st.sampled_from(("", " ", "a b", "\n\n"))), max_size=8))
def test_count_joined_subtracts_the_per_call_constant(parts: list[str]) -> None:
    tokenizer = FramedWordTokenizer()
    assert count_joined(tokenizer, parts) == tokenizer.count("".join(parts))


def test_count_joined_reencodes_windows_not_parts() -> None:
    tokenizer = FramedWordTokenizer()
    parts = ["alpha beta gamma delta", "\n\n", "epsilon zeta eta theta"]
    counts = count_many(tokenizer, parts)
    prepared = prepare_parts(tokenizer, parts, counts)
    tokenizer.calls.clear()
    assert count_prepared(tokenizer, prepared) == tokenizer.count("".join(parts))
    assert max(len(text) for text in tokenizer.calls[:-1]) < len(parts[0])


def test_mismatched_counts_are_rejected() -> None:
    with pytest.raises(ConfigurationError, match=r"got 1 counts for 2 parts"):
        count_joined(WordTokenizer(), ["a", "b"], [1])


def test_importing_tokenization_loads_no_tokenizer_library() -> None:
    probe = (
        "import sys, fastrag.tokenization\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tiktoken', 'tokenizers')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_kept_parts_are_plain_tuples_the_collector_stops_tracking() -> None:
    # The packer keeps one prepared part per leaf of a document: a named tuple is
    # tracked for good (and promoted to the oldest generation); a plain one is not.
    leaves = ["Plain ASCII words, then more.", "Non-ASCII: café déjà vu.", "x"]
    for tokenizer in (TiktokenTokenizer(), FramedWordTokenizer(), WordTokenizer()):
        for kept in (count_and_prepare(tokenizer, leaves), prepare_plain(tokenizer, leaves)):
            assert [type(part) for part in kept] == [tuple] * len(leaves)
            gc.collect()
            assert not any(gc.is_tracked(part) for part in kept)
            named = prepare_parts(tokenizer, leaves)
            assert [type(part) for part in named] == [PreparedPart] * len(leaves)
            assert kept == named  # the same fields, in the same order
            assert count_prepared(tokenizer, kept) == count_prepared(tokenizer, named)
