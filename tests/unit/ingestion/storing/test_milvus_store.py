"""``MilvusStore`` against a real Milvus Lite, started by the tests on 127.0.0.1.

One Lite file per module (its in-process server starts once); each test writes its own
collection in it, so tests stay independent. Records are the bundled example documents
chunked for real; vectors are derived from chunk ids.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pymilvus")

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.storing import (
    MilvusStore,
    RecordTooLargeError,
    SchemaMismatchError,
    StoreError,
    VectorRecord,
)
from tests.unit.ingestion.storing._records import DIMENSION, vector_for


@pytest.fixture(scope="module")
def lite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A Lite file whose server stays up for the module (one anchor store keeps it open)."""
    path = tmp_path_factory.mktemp("milvus") / "index.db"
    anchor = MilvusStore(path, "anchor").open()
    yield path
    anchor.close()


@pytest.fixture
def store(lite: Path, request: pytest.FixtureRequest) -> Iterator[MilvusStore]:
    with MilvusStore(lite, request.node.name.split("[")[0][:60]) as opened:
        yield opened


def _items(records: list[dict[str, Any]]) -> list[VectorRecord]:
    return [VectorRecord(r, vector_for(r["chunk_id"])) for r in records]


def _record(
    chunk_id: str, *, tenant: str, acl: list[str], vector: tuple[float, ...]
) -> VectorRecord:
    record = {
        "chunk_id": chunk_id, "document_id": f"doc-{tenant}", "source": f"{tenant}.md",
        "source_type": "markdown", "page": 1, "section": "S", "text": f"text of {chunk_id}",
        "char_start": 0, "char_end": 10, "token_estimate": 3,
        "metadata": {"tenant": tenant, "acl": acl, "ingestion_version": "v1"},
    }  # fmt: skip
    return VectorRecord(record, vector)


def test_upsert_then_search_count_and_read_back(
    store: MilvusStore, records: list[dict[str, Any]]
) -> None:
    result = store.upsert(_items(records))
    assert result.ok and result.stored == tuple(r["chunk_id"] for r in records)
    assert store.dimension == DIMENSION and store.count() == len(records)
    per_document = Counter(r["document_id"] for r in records)
    assert store.document_ids() == frozenset(per_document)
    for document_id, count in per_document.items():
        assert store.count(document_id) == count
        expected = {r["chunk_id"] for r in records if r["document_id"] == document_id}
        assert store.chunk_ids(document_id) == expected
    target = records[17]
    (best, *_) = store.search(vector_for(target["chunk_id"]), k=3, tenant="acme")
    assert best.chunk_id == target["chunk_id"] and best.score == pytest.approx(1.0, abs=1e-5)
    assert (best.text, best.source, best.page, best.section) == (
        target["text"], target["source"], target["page"], target["section"],
    )  # fmt: skip
    assert (best.char_start, best.char_end) == (target["char_start"], target["char_end"])
    assert (best.tenant, best.acl, best.metadata) == ("acme", ("staff",), target["metadata"])
    assert store.get([target["chunk_id"], "absent"]) == [target]


def test_upsert_replaces_by_chunk_id(store: MilvusStore, records: list[dict[str, Any]]) -> None:
    store.upsert(_items(records[:5]))
    changed = {**records[2], "text": "replaced"}
    assert store.upsert([VectorRecord(changed, vector_for("other"))]).ok
    assert store.count() == 5
    assert store.get([changed["chunk_id"]])[0]["text"] == "replaced"


def test_filtered_deletes(store: MilvusStore, records: list[dict[str, Any]]) -> None:
    store.upsert(_items(records))
    first, second = sorted({r["document_id"] for r in records})[:2]
    gone = sum(r["document_id"] == first for r in records)
    assert store.delete_document(first) == gone
    assert store.count() == len(records) - gone and store.chunk_ids(first) == frozenset()
    source = next(r["source"] for r in records if r["document_id"] == second)
    keep = sorted(store.chunk_ids(second))[:1]
    store.delete_where(source=source, keep_chunk_ids=keep)
    assert store.chunk_ids(second) == frozenset(keep)
    version = records[0]["metadata"]["ingestion_version"]
    assert store.delete_version("another-version") == 0
    store.delete_version(version)
    assert store.count() == 0
    with pytest.raises(ConfigurationError, match="at least one"):
        store.delete_where()


def test_tenant_isolation_with_hostile_tenant_names(store: MilvusStore) -> None:
    near, far = (1.0,) + (0.0,) * (DIMENSION - 1), (0.0,) * (DIMENSION - 1) + (1.0,)
    hostile = ['a" or tenant != "x', "a' or '1' == '1", "a\\", 'a\\" or true or \\"']
    items = [_record(f"b{i}", tenant="B", acl=["g"], vector=near) for i in range(8)]
    items += [_record(f"a{i}", tenant="A", acl=["g"], vector=far) for i in range(3)]
    items += [_record(f"h{i}", tenant=t, acl=["g"], vector=near) for i, t in enumerate(hostile)]
    assert store.upsert(items).ok
    hits = store.search(near, k=5, tenant="A")
    # B's chunks are all nearer, but the filter runs inside the query: A still gets its 3.
    assert sorted(h.chunk_id for h in hits) == ["a0", "a1", "a2"]
    assert {h.tenant for h in hits} == {"A"}
    for i, tenant in enumerate(hostile):
        assert [h.chunk_id for h in store.search(near, k=20, tenant=tenant)] == [f"h{i}"]
    for probe in ['A" or tenant == "B', "A' or tenant == 'B", 'x" or "1" == "1', "a"]:
        assert store.search(near, k=20, tenant=probe) == []
    assert len(store.search(near, k=20, tenant=None)) == len(items)
    assert store.count(tenant="B") == 8 and store.count(tenant="A") == 3


def test_acl_filter_is_part_of_the_query(store: MilvusStore) -> None:
    vector = vector_for("q")
    store.upsert(
        [
            _record("eng", tenant="T", acl=["eng"], vector=vector),
            _record("ops", tenant="T", acl=["ops", "oncall"], vector=vector),
            _record("open", tenant="T", acl=[], vector=vector),
        ]
    )

    def ids(acl: list[str] | None) -> list[str]:
        return sorted(h.chunk_id for h in store.search(vector, k=10, tenant="T", acl=acl))

    assert ids(["oncall"]) == ["ops"]
    assert ids(["eng", "ops"]) == ["eng", "ops"]
    assert ids(['eng"]) or true or array_contains_any(acl, ["']) == []
    assert ids([]) == []
    assert ids(None) == ["eng", "open", "ops"]
    assert store.search(vector, k=10, tenant="T", where={"source": ["x"]}) == []
    where = {"source": ["T.md", "x"], "page": 1}
    assert len(store.search(vector, k=10, tenant="T", acl=["eng"], where=where)) == 1
    with pytest.raises(ConfigurationError, match="may filter on"):
        store.search(vector, tenant="T", where={"metadata": "x"})


def test_oversized_records_are_rejected_and_the_rest_stored(
    store: MilvusStore, records: list[dict[str, Any]]
) -> None:
    batch = records[:6]
    too_long = {**batch[1], "text": "é" * 32_768}
    huge_metadata = {**batch[3], "metadata": {**batch[3]["metadata"], "pad": "x" * 70_000}}
    items = _items([batch[0], too_long, batch[2], huge_metadata, batch[4], batch[5]])
    result = store.upsert(items)
    assert not result.ok
    assert [(e.chunk_id, e.field) for e in result.rejected] == [
        (batch[1]["chunk_id"], "text"), (batch[3]["chunk_id"], "metadata"),
    ]  # fmt: skip
    assert all(isinstance(e, RecordTooLargeError) for e in result.rejected)
    assert result.stored == tuple(batch[i]["chunk_id"] for i in (0, 2, 4, 5))
    assert store.count() == 4 and store.get([batch[1]["chunk_id"]]) == []
    with pytest.raises(RecordTooLargeError, match=batch[1]["chunk_id"]):
        result.raise_for_rejected()


def test_small_batches_and_duplicates(lite: Path, records: list[dict[str, Any]]) -> None:
    with MilvusStore(lite, "small_batches", batch_size=7) as store:
        doubled = _items(records[:20]) + _items(records[:1])
        result = store.upsert(doubled)
        assert len(result.stored) == 20 and store.count() == 20
        assert [(e.chunk_id, e.field) for e in result.rejected] == [
            (records[0]["chunk_id"], "chunk_id")
        ]
        wrong = VectorRecord(records[30], vector_for("x", DIMENSION * 2))
        assert store.upsert([wrong]).rejected[0].field == "vector"
        with pytest.raises(ConfigurationError, match="16-dimensional"):
            store.search(vector_for("x", 8), tenant=None)


def test_reopen_finds_the_data_and_unlocks_the_file(
    tmp_path: Path, records: list[dict[str, Any]]
) -> None:
    path = tmp_path / "reopen.db"
    with MilvusStore(path) as store:
        store.upsert(_items(records[:10]))
    # Closed: another process can open the file and sees every row.
    script = (
        "import sys\nfrom fastrag.ingestion.steps.storing import MilvusStore\n"
        "with MilvusStore(sys.argv[1]) as s: print(s.count(), s.dimension)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.split() == ["10", str(DIMENSION)], done.stderr[-2000:]
    with MilvusStore(path) as again:
        assert again.dimension == DIMENSION and again.count() == 10
        assert (
            again.search(vector_for(records[4]["chunk_id"]), k=1, tenant="acme")[0].chunk_id
            == records[4]["chunk_id"]
        )


def test_schema_mismatches_are_refused_on_open(lite: Path, records: list[dict[str, Any]]) -> None:
    with MilvusStore(lite, "schema_check") as store:
        store.upsert(_items(records[:2]))
    with pytest.raises(SchemaMismatchError, match=r"16-dimensional.*dimension=384"):
        MilvusStore(lite, "schema_check", dimension=384).open()
    with pytest.raises(SchemaMismatchError, match="metric 'COSINE'"):
        MilvusStore(lite, "schema_check", metric="L2").open()
    import pymilvus

    client = pymilvus.MilvusClient(str(lite))
    try:
        client.create_collection("foreign", dimension=8)
    finally:
        client.close()
    with pytest.raises(SchemaMismatchError, match=r"missing fields .*'acl'"):
        MilvusStore(lite, "foreign").open()


def test_empty_or_missing_collection_reads_as_empty(
    lite: Path, records: list[dict[str, Any]]
) -> None:
    with MilvusStore(lite, "late") as reader:
        assert reader.count() == 0 and reader.document_ids() == frozenset()
        assert reader.search(vector_for("x"), tenant="acme") == []
        assert reader.delete_document("d") == 0
        with MilvusStore(lite, "late") as writer:  # created after the reader opened
            writer.upsert(_items(records[:3]))
        assert reader.count() == 3 and reader.dimension == DIMENSION
        reader.drop()
        assert reader.count() == 0 and reader.dimension is None


def test_the_token_never_shows(tmp_path: Path) -> None:
    store = MilvusStore("http://user:pw@127.0.0.1:9", token="s3cret-token", timeout=2)
    shown = f"{store!r} {store.config()} {pickle.loads(pickle.dumps(store))!r}"
    assert "s3cret" not in shown and "pw" not in shown and "127.0.0.1:9" in shown
    with pytest.raises(StoreError) as caught:
        store.open()
    assert "s3cret" not in str(caught.value) and ":pw@" not in str(caught.value)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"uri": "index.sqlite"}, "ending in '.db'"),
        ({"collection": "bad-name"}, "letters, digits"),
        ({"dimension": 0}, "dimension"),
        ({"metric": "HAMMING"}, "metric"),
        ({"batch_size": 0}, "batch_size"),
    ],
)
def test_bad_configuration_fails_before_connecting(
    tmp_path: Path, arguments: dict[str, Any], message: str
) -> None:
    arguments = {"uri": tmp_path / "x.db", **arguments}
    with pytest.raises(ConfigurationError, match=message):
        MilvusStore(**arguments)
