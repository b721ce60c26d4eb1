"""``PackingConfig`` refuses impossible budgets and unknown modes before any work."""

from __future__ import annotations

from typing import Any

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.chunking import StructureAwareChunker, Utf8ByteTokenizer
from fastrag.packing import PackingConfig

INVALID: dict[str, tuple[dict[str, Any], str]] = {
    "target over max": ({"target_tokens": 700, "max_tokens": 600}, "'target_tokens' (700)"),
    "zero max": ({"max_tokens": 0}, "'max_tokens' must be > 0 (got 0)"),
    "negative target": ({"target_tokens": -1}, "'target_tokens' must be > 0 (got -1)"),
    "negative overlap": ({"overlap_tokens": -5}, "'overlap_tokens' must be >= 0 (got -5)"),
    "overlap over ceiling": ({"overlap_tokens": 60}, "'overlap_tokens' (60)"),
    "overlap not below max": (
        {"overlap_tokens": 30, "max_tokens": 30, "target_tokens": 20, "min_preferred_tokens": 10},
        "'overlap_tokens' (30) must be smaller than 'max_tokens' (30)",
    ),
    "min preferred over max": ({"min_preferred_tokens": 601}, "'min_preferred_tokens' (601)"),
    "float size": ({"max_tokens": 600.0}, "'max_tokens' must be an int"),
    "bool size": ({"target_tokens": True}, "'target_tokens' must be an int"),
    "flag not bool": ({"merge_small_sections": "yes"}, "'merge_small_sections' must be True"),
    "unknown mode": ({"semantic_mode": "fuzzy"}, "'semantic_mode' must be one of"),
    "unknown policy": ({"oversized_block_policy": "truncate"}, "'truncate'"),
}


def test_a_small_budget_without_overlap_is_valid() -> None:
    config = PackingConfig(max_tokens=40, target_tokens=30, min_preferred_tokens=10)
    assert config.max_overlap_tokens == 50 and config.overlap_tokens == 0


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_configurations_are_refused_naming_the_value(case: str) -> None:
    options, fragment = INVALID[case]
    with pytest.raises(ConfigurationError) as caught:
        PackingConfig(**options)
    assert fragment in str(caught.value)
    with pytest.raises(ConfigurationError):
        StructureAwareChunker(tokenizer=Utf8ByteTokenizer(), cache=False, **options)


def test_llm_mode_without_a_refiner_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="ChatBoundaryRefiner") as caught:
        PackingConfig(semantic_mode="llm")
    assert "no silent fallback" in str(caught.value)
    with pytest.raises(ConfigurationError, match="semantic_refiner"):
        StructureAwareChunker(tokenizer=Utf8ByteTokenizer(), semantic_refiner=object())


def test_defaults_match_the_specification() -> None:
    config = PackingConfig()
    assert (config.target_tokens, config.max_tokens, config.min_preferred_tokens) == (
        400,
        600,
        100,
    )
    assert (config.overlap_tokens, config.max_overlap_tokens) == (0, 50)
    assert config.semantic_mode == "heuristic"
    assert config.oversized_block_policy == "split_with_context"
    assert config.identity()["max_tokens"] == 600


def test_a_tokenizer_without_the_protocol_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="boundaries"):
        StructureAwareChunker(tokenizer=object())  # type: ignore[arg-type]
