"""End to end on a tiny corpus with the real all-MiniLM-L6-v2: chunk, embed, retrieve, score."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from fastrag.benchmarking._embedding import CachedEmbedder, EmbeddingCache
from fastrag.benchmarking.configs import ChunkerConfig
from fastrag.benchmarking.corpus import load_labelled_corpus
from fastrag.benchmarking.evaluate import ConfigResult, EvalSettings, evaluate
from fastrag.benchmarking.retrieval_settings import RetrievalSettings
from fastrag.exceptions import ConfigurationError
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


def test_retrieval_settings_rank_differently_but_score_the_chunk(
    tmp_path: Path, tiny_corpus: tuple[Path, Path], counting: CountingEmbedder
) -> None:
    corpus = load_labelled_corpus(*tiny_corpus)
    tokenizer = cache(lambda: HuggingFaceTokenizer(counting.inner.tokenizer_file))
    embedder = CachedEmbedder(counting, EmbeddingCache(tmp_path / "cache.sqlite"))
    best = RetrievalSettings("hybrid", "window", "fuse", dedupe=True, window_tokens=40)
    window_only = RetrievalSettings("bm25", "window", window_tokens=40)
    configs = [
        STRUCTURE,
        ChunkerConfig("lexical", "structure", STRUCTURE.params, RetrievalSettings("bm25")),
        ChunkerConfig("hybrid", "structure", STRUCTURE.params, RetrievalSettings("hybrid")),
        ChunkerConfig("best", "structure", STRUCTURE.params, best),
        ChunkerConfig("windows", "structure", STRUCTURE.params, window_only),
    ]

    def run(k: int, chosen: list[ChunkerConfig]) -> list[ConfigResult]:
        return evaluate(
            corpus,
            chosen,
            embedder,
            settings=EvalSettings(protocol="k", k=k),
            model_tokenizer=tokenizer,
            model_tokenizer_file=counting.inner.tokenizer_file,
        )

    dense, lexical, hybrid, fused, windows = run(2, configs)
    # Every question quotes its section's words, so every ranking has it in the top 2.
    for result in (dense, lexical, hybrid, fused, windows):
        assert result.overall["recall"].mean == 1.0
        assert result.cost["chunks"] == 12
    assert dense.retrieval == RetrievalSettings() and dense.label == "structure 64"
    assert lexical.cost["model_tokens_embedded"] == 0
    assert fused.label == "best [hybrid, bm25 over window, embed fuse, window 40, dedupe]"
    assert fused.as_dict()["retrieval"]["window_tokens"] == 40
    # The windows (at most 40 pieces + [CLS] [SEP]) were embedded next to the chunks.
    assert 12 < fused.cost["max_window_model_tokens"] <= 42
    assert fused.cost["model_tokens_embedded"] > dense.cost["model_tokens_embedded"]
    assert [score.retrieved for score in fused.scores] == [2] * 6

    # At k = 1 the chunk rankings still find every section, but BM25 over 40-piece
    # windows does not: a ~20-piece section's neighbours' windows hold the same words,
    # the scores tie, and the earlier chunk wins. Windows need the dense ranking (or
    # k > 1) to pick among neighbours.
    at_one = run(1, [configs[1], configs[2], configs[4]])
    assert [result.overall["recall"].mean for result in at_one[:2]] == [1.0, 1.0]
    assert [score.recall for score in at_one[2].scores] == [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]

    # fuse_sentences also embeds every sentence and line of every chunk: a heading line
    # and at least one sentence per section, so at least two per chunk.
    sentences = RetrievalSettings("hybrid", "window", "fuse_sentences", True, 40)
    (by_sentence,) = run(2, [ChunkerConfig("sentences", "structure", STRUCTURE.params, sentences)])
    assert by_sentence.overall["recall"].mean == 1.0
    assert by_sentence.cost["sentences_embedded"] >= 2 * 12
    assert by_sentence.cost["model_tokens_embedded"] > fused.cost["model_tokens_embedded"]
    assert fused.cost["sentences_embedded"] == 0
    assert "embed fuse_sentences" in by_sentence.label

    with pytest.raises(ConfigurationError, match=r"tokenizer\.json"):
        evaluate(corpus, [configs[3]], embedder, model_tokenizer=tokenizer)
