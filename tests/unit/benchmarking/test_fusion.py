"""Reciprocal rank fusion and near-duplicate skipping on hand-made rankings and texts."""

from __future__ import annotations

from fastrag.benchmarking.fusion import (
    Deduplicator,
    near_duplicate,
    reciprocal_rank_fusion,
    trigrams,
)
from fastrag.benchmarking.retrieval import select

FOX = "the quick brown fox jumps over the lazy dog"
FOX_LATER = "the quick brown fox jumps over the lazy dog today"  # 7 of 8 trigrams shared
FOX_ASLEEP = "the quick brown fox sleeps under the warm sun"  # 2 of 12 shared
FOX_SHOUTED = "The Quick Brown Fox jumps over the lazy dog."


def test_rrf_sums_reciprocal_ranks_with_constant_60() -> None:
    # 0: 1/61 + 1/62, 2: 1/63 + 1/61, 1: 1/62, 3: 1/63
    assert reciprocal_rank_fusion([[[0, 1, 2]], [[2, 0, 3]]], 10) == [[0, 2, 1, 3]]


def test_rrf_breaks_ties_by_index_and_truncates_per_question() -> None:
    fused = reciprocal_rank_fusion([[[5, 1], [7, 8, 9]], [[1, 5], [9]]], 2)
    # Question 0: 5 and 1 tie (1/61 + 1/62 each), the smaller index first.
    # Question 1: 9 has 1/63 + 1/61; 7 (1/61) beats 8 (1/62); depth 2 keeps two.
    assert fused == [[1, 5], [9, 7]]


def test_rrf_constant_changes_the_weight_of_rank() -> None:
    # With constant 0: 0 gets 1/1 + 1/3 = 1.33, 2 gets 1/3 + 1/1 = 1.33 (tie), 1 gets 1/2.
    assert reciprocal_rank_fusion([[[0, 1, 2]], [[2, 3, 0]]], 5, constant=0) == [[0, 2, 1, 3]]


def test_trigrams_are_casefolded_words() -> None:
    assert trigrams(FOX_SHOUTED) == trigrams(FOX)
    assert len(trigrams(FOX)) == 7
    assert trigrams("two words") == frozenset({("two", "words")})


def test_near_duplicate_at_jaccard_080() -> None:
    assert near_duplicate(trigrams(FOX), trigrams(FOX_LATER))  # 7 / 8 = 0.875
    assert not near_duplicate(trigrams(FOX), trigrams(FOX_ASLEEP))  # 2 / 12
    assert not near_duplicate(trigrams(FOX), trigrams(FOX_LATER), threshold=0.9)
    assert not near_duplicate(frozenset(), trigrams(FOX))


def test_dedupe_skips_copies_of_returned_chunks_and_counts_them() -> None:
    texts = [FOX, FOX_LATER, FOX_ASLEEP, FOX_SHOUTED, "an unrelated sentence about tea"]
    deduplicator = Deduplicator(texts)
    chosen = select(deduplicator.filter([1, 0, 3, 2, 4]), "k", k=2, token_budget=0, tokens=[])
    assert chosen == [1, 2]  # 0 and 3 repeat 1
    assert deduplicator.skipped == 2
    # Lazy: a second question that stops early looks at nothing past its k-th result.
    assert select(deduplicator.filter([4, 2, 0]), "k", k=2, token_budget=0, tokens=[]) == [4, 2]
    assert deduplicator.skipped == 2


def test_dedupe_under_the_token_budget_protocol() -> None:
    texts = [FOX, FOX_SHOUTED, FOX_ASLEEP, "tea"]
    tokens = [10, 10, 10, 10]
    chosen = select(
        Deduplicator(texts).filter([0, 1, 2, 3]), "tokens", k=0, token_budget=20, tokens=tokens
    )
    assert chosen == [0, 2]
