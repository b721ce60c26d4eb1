"""``EmbeddingSemanticChunker`` with hand-made vectors: every threshold against paper.

Six sentences embedded alone (``buffer_size=0``) as (1,0) (1,0) (0,1) (3,4) (4,3) (-1,0)
give cosine distances [0, 1, 0.2, 0.04, 1.8] and gradient [1, 0.1, -0.48, 0.8, 1.76].
The separators are deliberately irregular (two spaces, a blank line, a tab, a trailing
newline) so every chunk's exact whitespace is checked too.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from fastrag.exceptions import ChunkingError, ConfigurationError
from fastrag.ingestion.steps.chunking import _semantic_stats as stats
from fastrag.ingestion.steps.chunking.embedding_semantic import EmbeddingSemanticChunker
from fastrag.ingestion.steps.embedding import Embedder
from fastrag.models import Document
from fastrag.pipeline import ExecutionContext, InMemoryCacheStore
from tests.unit.chunking._semantic_support import TableModel, document, table_embedder

TEXT = "One.  Two.\n\nThree. Four.\tFive. \n Six.\n"
S = ["One.  ", "Two.\n\n", "Three. ", "Four.\t", "Five. \n ", "Six.\n"]
TABLE = {
    "One.": (1.0, 0.0),
    "Two.": (1.0, 0.0),
    "Three.": (0.0, 1.0),
    "Four.": (3.0, 4.0),
    "Five.": (4.0, 3.0),
    "Six.": (-1.0, 0.0),
}


def _chunker(**settings: Any) -> EmbeddingSemanticChunker:
    settings.setdefault("buffer_size", 0)
    return EmbeddingSemanticChunker(embeddings=table_embedder(TABLE), **settings)


async def _texts(chunker: EmbeddingSemanticChunker, text: str = TEXT) -> list[str]:
    pieces = [piece async for piece in chunker.asplit(document(text))]
    texts = [piece if isinstance(piece, str) else piece[0] for piece in pieces]
    assert "".join(texts) == text
    return texts


def _groups(*sizes: int) -> list[str]:
    out, first = [], 0
    for size in sizes:
        out.append("".join(S[first : first + size]))
        first += size
    return out


def test_the_statistics_equal_numpy_bit_for_bit() -> None:
    np = pytest.importorskip("numpy")
    rng = random.Random(7)
    for count in (1, 2, 3, 7, 8, 9, 16, 17, 129, 300):
        values = [rng.random() * 2 for _ in range(count)]
        array = np.array(values)
        assert stats.mean(values) == float(np.mean(array))
        assert stats.std(values) == float(np.std(array))
        for amount in (0, 25, 33.3, 50, 75, 95, 100):
            assert stats.percentile(values, amount) == float(np.percentile(array, amount))
        if count >= 2:
            expected = np.gradient(array, range(count))
            assert stats.gradient(values) == [float(x) for x in expected]


@pytest.mark.parametrize(
    ("settings", "sizes"),
    [
        ({}, (5, 1)),  # percentile 95 = 1.64: only 1.8
        ({"breakpoint_threshold_amount": 50}, (2, 3, 1)),  # median 0.2: 1 and 1.8
        ({"breakpoint_threshold_type": "standard_deviation"}, (6,)),  # 0.608 + 3 * 0.698
        (
            {"breakpoint_threshold_type": "standard_deviation", "breakpoint_threshold_amount": 1},
            (5, 1),
        ),
        (
            {"breakpoint_threshold_type": "standard_deviation", "breakpoint_threshold_amount": 0.5},
            (2, 3, 1),
        ),
        ({"breakpoint_threshold_type": "interquartile"}, (6,)),  # 0.608 + 1.5 * 0.96 = 2.048
        (
            {"breakpoint_threshold_type": "interquartile", "breakpoint_threshold_amount": 0.3},
            (2, 3, 1),
        ),
        ({"breakpoint_threshold_type": "gradient"}, (5, 1)),  # p95 of gradient = 1.608
        ({"breakpoint_threshold_type": "gradient", "breakpoint_threshold_amount": 50}, (1, 4, 1)),
        ({"number_of_chunks": 3}, (2, 3, 1)),  # the two largest: 1.8 and 1
        ({"number_of_chunks": 4}, (2, 1, 2, 1)),  # then 0.2
        ({"number_of_chunks": 1}, (6,)),
        ({"number_of_chunks": 99}, (1, 1, 1, 1, 1, 1)),
    ],
)
async def test_each_threshold_cuts_where_computed_by_hand(
    settings: dict[str, Any], sizes: tuple[int, ...]
) -> None:
    assert await _texts(_chunker(**settings)) == _groups(*sizes)


async def test_the_threshold_values_are_the_hand_computed_ones() -> None:
    distances = [0.0, 1.0, 0.2, 0.04, 1.8]
    assert stats.percentile(distances, 95) == pytest.approx(1.64)
    assert stats.breakpoints(distances, "standard_deviation", 1)[0] == pytest.approx(
        1.3056, abs=1e-4
    )
    assert stats.breakpoints(distances, "interquartile", 1.5)[0] == pytest.approx(2.048)
    threshold, slopes = stats.breakpoints(distances, "gradient", 95)
    assert slopes == pytest.approx([1, 0.1, -0.48, 0.8, 1.76])
    assert threshold == pytest.approx(1.608)
    computed = stats.cosine_distances([TABLE[s.strip()] for s in S])
    assert computed == pytest.approx(distances, abs=1e-12)


async def test_number_of_chunks_breaks_ties_by_earlier_offset() -> None:
    table = {"A.": (1.0, 0.0), "B.": (0.0, 1.0), "C.": (1.0, 0.0), "D.": (0.0, 1.0)}
    text = "A. B. C. D."  # three distances, all exactly 1
    for count, expected in [
        (2, ["A. ", "B. C. D."]),
        (3, ["A. ", "B. ", "C. D."]),
        (4, ["A. ", "B. ", "C. ", "D."]),
    ]:
        chunker = EmbeddingSemanticChunker(
            embeddings=table_embedder(table), buffer_size=0, number_of_chunks=count
        )
        assert await _texts(chunker, text) == expected
    # LangChain's percentile threshold (1) cuts nowhere on ties: the default gives 1 chunk.
    plain = EmbeddingSemanticChunker(embeddings=table_embedder(table), buffer_size=0)
    assert await _texts(plain, text) == [text]


async def test_min_chunk_size_counts_source_characters_and_merges_forward() -> None:
    # "One.  Two." is 10 source characters (two spaces inside); cut 1 survives at 10 only.
    kept = _chunker(number_of_chunks=3, min_chunk_size=10)
    assert await _texts(kept) == _groups(2, 3, 1)
    merged = _chunker(number_of_chunks=3, min_chunk_size=11)
    assert await _texts(merged) == _groups(5, 1)
    # The last group is kept whatever its size, as in LangChain.
    tail = _chunker(number_of_chunks=6, min_chunk_size=11)
    assert await _texts(tail) == _groups(3, 2, 1)


async def test_start_index_is_the_source_offset() -> None:
    chunker = _chunker(number_of_chunks=4, add_start_index=True)
    pieces = [piece async for piece in chunker.asplit(document(TEXT))]
    for piece in pieces:
        assert isinstance(piece, tuple)
        text, metadata = piece
        assert TEXT[metadata["start_index"] :].startswith(text)
    assert [p[1]["start_index"] for p in pieces if isinstance(p, tuple)] == [0, 12, 19, 33]
    plain = [piece async for piece in _chunker(number_of_chunks=4).asplit(document(TEXT))]
    assert all(isinstance(piece, str) for piece in plain)


async def test_buffered_windows_are_the_joined_neighbours_in_batches() -> None:
    text = "One. Two. Three. Four."
    table = {
        "One. Two.": (1.0, 0.0),
        "One. Two. Three.": (1.0, 0.0),
        "Two. Three. Four.": (0.0, 1.0),
        "Three. Four.": (0.0, 1.0),
    }
    model = TableModel(table)
    chunker = EmbeddingSemanticChunker(embeddings=Embedder(model), batch_size=3)
    assert await _texts(chunker, text) == ["One. Two. ", "Three. Four."]
    assert model.calls == [["One. Two.", "One. Two. Three.", "Two. Three. Four."], ["Three. Four."]]


async def test_one_sentence_and_blank_documents() -> None:
    model = TableModel({})
    chunker = EmbeddingSemanticChunker(embeddings=Embedder(model))
    assert await _texts(chunker, "  Just one sentence here\n") == ["  Just one sentence here\n"]
    assert [p async for p in chunker.asplit(document(" \n\t "))] == []
    assert model.calls == []  # nothing to compare, nothing embedded


def test_split_refuses_synchronous_use() -> None:
    with pytest.raises(ChunkingError, match="asplit"):
        list(_chunker().split(document(TEXT)))


async def test_pipeline_output_keeps_whitespace_and_replays_in_order() -> None:
    cache = InMemoryCacheStore()
    chunker = _chunker(number_of_chunks=4, add_start_index=True, cache=cache)
    parent = document(TEXT)
    first = await chunker([parent]).run()
    assert [c.content for c in first] == _groups(2, 1, 2, 1)
    assert [c.metadata["chunk_index"] for c in first] == [0, 1, 2, 3]
    model = chunker.embeddings.model
    assert isinstance(model, TableModel)
    calls = len(model.calls)
    again = await chunker([parent]).run()
    assert [c.id for c in again] == [c.id for c in first]
    assert len(model.calls) == calls  # replayed, not re-embedded


async def test_a_replay_out_of_source_order_fails_the_item() -> None:
    chunker = _chunker(number_of_chunks=3)
    parent = document(TEXT)
    chunks = await chunker([parent]).run()
    context = ExecutionContext()
    await chunker.validate_output(parent, chunks, context)
    with pytest.raises(ChunkingError, match="not the next source slice"):
        await chunker.validate_output(parent, chunks[::-1], context)
    edited = Document(chunks[0].id, parent.source_id, "One. Two.", chunks[0].metadata)
    with pytest.raises(ChunkingError, match="clear this step's cache"):
        await chunker.validate_output(parent, [edited, *chunks[1:]], context)


def test_config_names_settings_and_model_identity_only() -> None:
    config = _chunker().config()
    assert config["embeddings"] == "table-model:v1"
    assert config["breakpoint_threshold_amount"] == 95.0
    assert config["sentence_split_regex"] == r"(?<=[.?!])\s+"
    assert "batch_size" not in config
    assert _chunker(batch_size=3).config_hash == _chunker().config_hash
    assert _chunker(min_chunk_size=5).config_hash != _chunker().config_hash


@pytest.mark.parametrize(
    "settings",
    [
        {"breakpoint_threshold_type": "median"},
        {"breakpoint_threshold_amount": 101},
        {"breakpoint_threshold_amount": float("nan")},
        {"buffer_size": -1},
        {"number_of_chunks": 0},
        {"min_chunk_size": 0},
        {"batch_size": 0},
        {"sentence_split_regex": "(["},
        {"add_start_index": "yes"},
    ],
)
def test_bad_settings_fail_at_construction(settings: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        _chunker(**settings)


def test_embeddings_must_be_an_embedder() -> None:
    with pytest.raises(ConfigurationError, match="Embedder"):
        EmbeddingSemanticChunker(embeddings=object())  # type: ignore[arg-type]
