"""A hybrid collection in real Milvus Lite, with hand-made vectors (no model).

Checked: the window column and the sentence vectors are required in a hybrid collection
and refused in a dense one, BM25 reads the windows (not the returned text), a chunk's
best sentence lifts it in the dense ranking, the tenant filter holds in every ranking,
deleting a generation deletes its sentences, and near-duplicate texts are skipped unless
asked otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.storing import MilvusStore, RecordRejectedError, VectorRecord
from fastrag.ingestion.steps.storing._rows import to_row
from tests.unit.ingestion.storing._records import DIMENSION, vector_for

pytest.importorskip("pymilvus")


def _record(chunk_id: str, tenant: str, text: str) -> dict[str, Any]:
    return {
        "chunk_id": chunk_id, "document_id": f"doc-{tenant}", "source": f"{tenant}.md",
        "source_type": "markdown", "page": None, "section": "S", "text": text,
        "char_start": 0, "char_end": len(text), "token_estimate": 3,
        "metadata": {"tenant": tenant, "ingestion_version": "v1"},
    }  # fmt: skip


SHARED = "the quarterly report lists revenue by region and by product line for the year"
ITEMS = [
    # (chunk id, tenant, returned text, window)
    ("a1", "acme", "Revenue by region.", "Revenue by region. The zanzibarite ore shipped."),
    ("a2", "acme", SHARED, SHARED),
    ("a3", "acme", SHARED + ".", SHARED + "."),
    ("a4", "acme", "Staff travel policy.", "Staff travel policy and per diem rates."),
    ("g1", "globex", "Zanzibarite prices.", "Zanzibarite prices rose; zanzibarite is rare."),
]


@pytest.fixture(scope="module")
def hybrid(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MilvusStore]:
    path = tmp_path_factory.mktemp("hybrid") / "index.db"
    with MilvusStore(path, "hybrid_unit", retrieval="hybrid") as store:
        result = store.upsert(
            VectorRecord(_record(c, t, text), vector_for(c), window, [vector_for(c)])
            for c, t, text, window in ITEMS
        )
        assert result.ok and len(result.stored) == len(ITEMS)
        yield store


def test_the_window_column_belongs_to_hybrid_collections_only(tmp_path: Path) -> None:
    record = _record("c1", "acme", "text")
    with pytest.raises(RecordRejectedError, match="collection is dense"):
        to_row(VectorRecord(record, vector_for("c1"), "window"), DIMENSION)
    with pytest.raises(RecordRejectedError, match="a hybrid collection needs each chunk's"):
        to_row(VectorRecord(record, vector_for("c1"), None, [vector_for("s")]), DIMENSION, "hybrid")
    with pytest.raises(RecordRejectedError, match="'sentences' is missing"):
        to_row(VectorRecord(record, vector_for("c1"), "window"), DIMENSION, "hybrid")
    with pytest.raises(RecordRejectedError, match="'sentences' is given"):
        to_row(VectorRecord(record, vector_for("c1"), None, [vector_for("s")]), DIMENSION)
    with pytest.raises(RecordRejectedError, match=r"'sentences\[0\]' has 2 dimensions"):
        to_row(VectorRecord(record, vector_for("c1"), "w", [(1.0, 0.0)]), DIMENSION, "hybrid")
    row = to_row(
        VectorRecord(record, vector_for("c1"), "the window", [vector_for("s")]), DIMENSION, "hybrid"
    )
    assert row.values["window"] == "the window"
    assert row.sentences == (list(vector_for("s")),)
    assert "window" not in to_row(VectorRecord(record, vector_for("c1")), DIMENSION).values


def test_bad_hybrid_settings_fail_before_connecting(tmp_path: Path) -> None:
    path = tmp_path / "never.db"
    with pytest.raises(ConfigurationError, match="retrieval must be one of"):
        MilvusStore(path, retrieval="sparse")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="metric='IP'"):
        MilvusStore(path, retrieval="hybrid", metric="COSINE")
    store = MilvusStore(path, retrieval="hybrid")
    assert (store.metric, store.retrieval) == ("IP", "hybrid")
    assert store.config()["retrieval"] == "hybrid"
    assert (MilvusStore(path).metric, MilvusStore(path).retrieval) == ("COSINE", "dense")
    assert "retrieval" not in MilvusStore(path).config()
    assert not path.exists()


def test_bm25_reads_windows_and_the_tenant_filter_holds_in_both_rankings(
    hybrid: MilvusStore,
) -> None:
    # "zanzibarite" is in a1's window, not its text; globex's g1 has it twice.
    hits = hybrid.hybrid_search(vector_for("a4"), "zanzibarite", 1, tenant="acme")
    assert [hit.chunk_id for hit in hits] == ["a1"]
    assert hits[0].text == "Revenue by region."
    every = hybrid.hybrid_search(vector_for("g1"), "zanzibarite", 10, tenant="acme")
    assert {hit.tenant for hit in every} == {"acme"}
    assert [hit.chunk_id for hit in hybrid.hybrid_search(
        vector_for("g1"), "zanzibarite", 10, tenant="globex"
    )] == ["g1"]  # fmt: skip
    assert hybrid.hybrid_search(vector_for("a1"), "zanzibarite", 5, tenant="acme", acl=[]) == []


def test_near_duplicates_are_skipped_unless_asked(hybrid: MilvusStore) -> None:
    query = "quarterly report revenue by region"
    kept = hybrid.hybrid_search(vector_for("a2"), query, 10, tenant="acme")
    every = hybrid.hybrid_search(vector_for("a2"), query, 10, tenant="acme", dedupe=False)
    assert {hit.chunk_id for hit in every} == {"a1", "a2", "a3", "a4"}
    copies = [hit.chunk_id for hit in every if hit.chunk_id in {"a2", "a3"}]
    # The worse-ranked copy goes; every other hit keeps its order.
    assert [hit.chunk_id for hit in kept] == [
        hit.chunk_id for hit in every if hit.chunk_id != copies[1]
    ]


def test_hybrid_search_needs_words_and_a_hybrid_collection(
    hybrid: MilvusStore, tmp_path: Path
) -> None:
    with pytest.raises(ConfigurationError, match="nonempty str"):
        hybrid.hybrid_search(vector_for("a1"), "  ", 5, tenant="acme")
    with MilvusStore(tmp_path / "dense.db") as dense:
        dense.upsert([VectorRecord(_record("d1", "acme", "text"), vector_for("d1"))])
        with pytest.raises(ConfigurationError, match="is a dense collection"):
            dense.hybrid_search(vector_for("d1"), "text", 5, tenant="acme")
        assert dense.retrieval == "dense"


def _axis(*weights: float) -> tuple[float, ...]:
    """A vector with ``weights`` on the first axes and zeros after (DIMENSION long)."""
    return (*weights, *([0.0] * (DIMENSION - len(weights))))


def test_a_chunk_is_also_scored_by_its_best_sentence(tmp_path: Path) -> None:
    # Query = axis 0. s2's fused vector is closer (0.7 against 0.6), but s1 holds a
    # sentence on the query's axis: (2 * 0.6 + 1.0) / 3 = 0.733 beats (2 * 0.7 + 0.7) / 3.
    with MilvusStore(tmp_path / "sentences.db", "sentences", retrieval="hybrid") as store:
        store.upsert(
            [
                VectorRecord(
                    _record("s1", "acme", "One. Two."),
                    _axis(0.6, 0.8),
                    "w1",
                    [_axis(0, 1), _axis(1)],
                ),
                VectorRecord(
                    _record("s2", "acme", "Three."),
                    _axis(0.7, 0.0, 0.714),
                    "w2",
                    [_axis(0.7, 0.0, 0.714)],
                ),
                VectorRecord(_record("x1", "other", "Four."), _axis(1), "w3", [_axis(1)]),
            ]
        )
        hits = store.hybrid_search(_axis(1), "absent", 5, tenant="acme")
        assert [hit.chunk_id for hit in hits] == ["s1", "s2"]
        assert [hit.chunk_id for hit in store.search(_axis(1), 5, tenant="acme")] == ["s2", "s1"]
        # Deleting a generation deletes its sentence rows with it.
        assert store.delete_where(document_id="doc-acme", keep_chunk_ids=["s2"]) == 1
        name = "sentences_sentences"
        rows = store._call("read", "query", name, filter="", output_fields=["chunk_id"], limit=10)
        assert sorted(row["chunk_id"] for row in rows) == ["s2", "x1"]
        store.drop()
        assert not store._call("look", "has_collection", name)
