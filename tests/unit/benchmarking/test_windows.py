"""Context windows cut in all-MiniLM-L6-v2's own word pieces (real tokenizer.json)."""

from __future__ import annotations

from functools import cache

import pytest

from fastrag.benchmarking._embedding import default_model_dir
from fastrag.benchmarking.chunking import IndexedChunk
from fastrag.benchmarking.windows import WindowMaker, context_window, token_offsets
from fastrag.tokenization import HuggingFaceTokenizer

GREEK = "alpha beta gamma delta epsilon zeta eta theta"
# "unbelievableness" is two pieces: unbelievable ##ness (a window must not start at ##ness)
WORDS = "one two unbelievableness three four five six"


@cache
def _tokenizer() -> HuggingFaceTokenizer:
    return HuggingFaceTokenizer(default_model_dir() / "tokenizer.json")


def _window(text: str, word: str, budget: int) -> str:
    tokenizers = pytest.importorskip("tokenizers")
    raw = tokenizers.Tokenizer.from_file(str(default_model_dir() / "tokenizer.json"))
    raw.no_truncation()
    raw.no_padding()
    start = text.index(word)
    return context_window(
        text, token_offsets(raw, text), (start, start + len(word)), budget, _tokenizer().count
    )


@pytest.mark.parametrize(
    ("text", "word", "budget", "expected"),
    [
        # 3 spare pieces: 1 before, 2 after (the odd piece goes after); 4: 2 and 2.
        (GREEK, "delta", 4, "gamma delta epsilon zeta"),
        (GREEK, "delta", 5, "beta gamma delta epsilon zeta"),
        # At the start, the spare pieces all go after; at the end, all before.
        (GREEK, "alpha", 3, "alpha beta gamma"),
        (GREEK, "theta", 3, "zeta eta theta"),
        # The whole document when the budget exceeds it.
        (GREEK, "delta", 100, GREEK),
        # A range already at or over budget is returned as is.
        (GREEK, "gamma delta", 2, "gamma delta"),
        (GREEK, "gamma delta epsilon", 2, "gamma delta epsilon"),
        # The piece before "three" is ##ness: start at the next word instead.
        (WORDS, "three", 3, "three four"),
        # The piece after "two" would be "unbelievable" without its ##ness: stop before.
        (WORDS, "two", 3, "one two"),
        (WORDS, "two", 4, "one two unbelievableness"),
    ],
)
def test_window_widens_equally_at_word_starts(
    text: str, word: str, budget: int, expected: str
) -> None:
    assert _window(text, word, budget) == expected


def test_window_maker_uses_the_exact_hull_of_a_chunk() -> None:
    documents = {"greek.txt": GREEK}
    maker = WindowMaker(documents, default_model_dir() / "tokenizer.json", _tokenizer().count, 4)
    start = GREEK.index("delta")
    chunk = IndexedChunk("greek.txt", ((start, start + 5),), "delta", "delta")
    assert maker.window(chunk) == "gamma delta epsilon zeta"
    two = IndexedChunk(
        "greek.txt", ((GREEK.index("beta"), GREEK.index("beta") + 4), (22, 22)), "", ""
    )
    # Hull "beta gamma delta" (3 pieces); 1 spare piece: 0 before, 1 after.
    assert maker.window(two) == "beta gamma delta epsilon"
