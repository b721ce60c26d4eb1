"""End to end on a tiny corpus with the real all-MiniLM-L6-v2: chunk, embed, retrieve, score."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from fastrag.benchmarking._embedding import CachedEmbedder, EmbeddingCache
from fastrag.benchmarking.configs import ChunkerConfig
from fastrag.benchmarking.corpus import load_labelled_corpus
from fastrag.benchmarking.evaluate import EvalSettings, evaluate
from fastrag.tokenization import HuggingFaceTokenizer
from tests.unit.benchmarking.conftest import CountingEmbedder

STRUCTURE = ChunkerConfig(
    "structure 64",
    "structure",
    {"max_tokens": 64, "target_tokens": 48, "format": "markdown", "merge_small_sections": False},
)
RECURSIVE = ChunkerConfig(
    "recursive 30/0", "recursive_tokens", {"chunk_size": 30, "chunk_overlap": 0}
)


def test_structure_sections_are_retrieved_whole_and_a_rerun_embeds_nothing(
    tmp_path: Path, tiny_corpus: tuple[Path, Path], counting: CountingEmbedder
) -> None:
    corpus = load_labelled_corpus(*tiny_corpus)
    tokenizer = cache(lambda: HuggingFaceTokenizer(counting.inner.tokenizer_file))
    embedder = CachedEmbedder(counting, EmbeddingCache(tmp_path / "cache.sqlite"))
    settings = EvalSettings(protocol="k", k=1)
    structure, recursive = evaluate(
        corpus, [STRUCTURE, RECURSIVE], embedder, settings=settings, model_tokenizer=tokenizer
    )
    # Each "## Part n" section (heading + one sentence) is one chunk under 64 tokens:
    # 6 + 6 sections; the title headings attach to the first section.
    assert structure.cost["chunks"] == 12
    assert structure.cost["truncated_chunks"] == 0
    assert structure.overall["recall"].mean == 1.0
    assert structure.overall["hit"].mean == 1.0
    assert structure.overall["split"].mean == 0.0
    # Section accuracy compares the first retrieved chunk's heading path (that of its
    # first block) with the label: the "Part 1" chunk opens with the "# Astronomy" title,
    # so its path is ("Astronomy",), not a match for ["Astronomy", "Part 1"].
    assert structure.overall["section"].mean == pytest.approx(5 / 6)
    assert set(structure.per_corpus) == {"cooking.md", "astronomy.md"}
    assert [score.retrieved for score in structure.scores] == [1] * 6
    # Recursive chunks carry no heading path: section accuracy is 0, not missing.
    assert recursive.overall["section"].mean == 0.0
    assert 0.0 < recursive.overall["precision"].mean <= 1.0

    # The token-budget protocol on the same index: a re-run embeds nothing new.
    embedded, calls = embedder.embedded, counting.calls
    budget = 100
    (by_tokens,) = evaluate(
        corpus,
        [STRUCTURE],
        embedder,
        settings=EvalSettings(protocol="tokens", token_budget=budget),
        model_tokenizer=tokenizer,
    )
    assert embedder.embedded == embedded and counting.calls == calls
    assert by_tokens.cost["retrieved_tokens"]["mean"] <= budget
    assert all(score.retrieved >= 2 for score in by_tokens.scores)  # chunks of ~20-30 tokens
    assert by_tokens.overall["recall"].mean == 1.0
