"""``LeafCounter``: counts assembled from prepared leaves and sub-parts equal full counts.

The final count of every chunk is taken from the leaves counted once (prepared parts,
runs of sub-parts, ragged ends re-encoded). Whatever the range and whatever surrounds
it, the result must be exactly the tokenizer's count of the joined text — for
tokenizers with split-point hints (cl100k, Hugging Face) and without (the hostile one).
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.packing.counter import SUB_PART, LeafCounter, Part
from tests.unit.packing._engine_support import tokenizer_named

_WORDS = st.sampled_from(
    ["The", "quick", "fox.", "`code`", "é", "naïve", "123", "4567", "--", "\n", "\n\n", " ", "日本"]
)
_TEXT = st.lists(_WORDS, min_size=1, max_size=400).map(" ".join)


def _leaf_bounds(text: str, cuts: list[int]) -> list[int]:
    return [0, *sorted({cut for cut in cuts if 0 < cut < len(text)}), len(text)]


@pytest.mark.parametrize("name", ["cl100k", "hf", "non-additive"])
@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(_TEXT, min_size=1, max_size=3),
    data=st.data(),
)
def test_ranges_and_joins_count_exactly(name: str, texts: list[str], data: Any) -> None:
    tokenizer = tokenizer_named(name)
    counter = LeafCounter(tokenizer)
    blocks = []
    for text in texts:
        cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=4))
        blocks.append((text, _leaf_bounds(text, cuts)))
    long = data.draw(st.sampled_from([2 * SUB_PART, 10**9]))
    counts = counter.count_blocks([text for text, _ in blocks], [b for _, b in blocks], long)
    flat = [text[x:y] for text, bounds in blocks for x, y in pairwise(bounds)]
    assert counts == [tokenizer.count(leaf) for leaf in flat]
    parts: list[Part] = []
    joined = []
    for index, (text, _) in enumerate(blocks):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
        assert counter.count_range(index, start, end) == tokenizer.count(text[start:end])
        if start < end:
            if parts:
                parts.append("\n\n")
                joined.append("\n\n")
            counter.block_parts(index, start, end, parts)
            joined.append(text[start:end])
    if parts:
        prefix = data.draw(st.sampled_from(["", "Guide > Setup\n\n", "A\n\n"]))
        assert counter.exact(prefix, parts) == tokenizer.count(prefix + "".join(joined))


def test_long_leaves_are_counted_by_sub_parts_exactly() -> None:
    tokenizer = tokenizer_named("cl100k")
    text = " ".join(f"word{index}, and more." for index in range(400))
    counter = LeafCounter(tokenizer)
    assert counter.count_blocks([text], [[0, len(text)]], 2 * SUB_PART) == [tokenizer.count(text)]
    for start, end in [(3, len(text) - 5), (SUB_PART + 7, 5 * SUB_PART + 3), (0, 999)]:
        assert counter.count_range(0, start, end) == tokenizer.count(text[start:end])
