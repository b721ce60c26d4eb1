"""The embedding cache: a second run embeds nothing; vectors replay exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from fastrag.benchmarking._embedding import CachedEmbedder, EmbeddingCache, text_key
from tests.unit.benchmarking.conftest import CountingEmbedder

TEXTS = ["The cat sat on the mat.", "Jupiter has many moons.", "The cat sat on the mat."]


def test_second_run_embeds_nothing_and_returns_equal_vectors(
    tmp_path: Path, counting: CountingEmbedder
) -> None:
    path = tmp_path / "cache.sqlite"
    first = CachedEmbedder(counting, EmbeddingCache(path))
    vectors = first.embed(TEXTS)
    assert vectors.shape == (3, 384)
    assert first.embedded == 2  # the repeated text is embedded once
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors[0], vectors[2])

    calls = counting.calls
    second = CachedEmbedder(counting, EmbeddingCache(path))  # a new process would do this
    again = second.embed(TEXTS)
    assert second.embedded == 0
    assert counting.calls == calls
    assert np.array_equal(again, vectors)

    third = CachedEmbedder(counting, EmbeddingCache(path))
    third.embed([*TEXTS, "A new sentence."])
    assert third.embedded == 1


def test_cache_is_keyed_by_model_identity(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "cache.sqlite")
    vector = np.arange(4, dtype=np.float32)
    cache.put_many("model-a", [(text_key("x"), vector)])
    assert cache.get_many("model-b", [text_key("x")]) == {}
    assert np.array_equal(cache.get_many("model-a", [text_key("x")])[text_key("x")], vector)
    assert cache.count() == 1
