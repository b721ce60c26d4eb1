"""A record becomes a row only within the Milvus server's limits, checked to the byte."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from fastrag.ingestion.steps.storing import (
    RecordRejectedError,
    RecordTooLargeError,
    StoreError,
    VectorRecord,
)
from fastrag.ingestion.steps.storing._rows import record_from_row, to_row
from tests.unit.ingestion.storing._records import DIMENSION, vector_for


@pytest.fixture
def record(records: list[dict[str, Any]]) -> dict[str, Any]:
    return records[0]


def _with(record: dict[str, Any], **changes: Any) -> VectorRecord:
    metadata = dict(record["metadata"])
    metadata.update(changes.pop("metadata", {}))
    return VectorRecord({**record, **changes, "metadata": metadata}, vector_for("x"))


def _rejection(item: VectorRecord) -> RecordRejectedError:
    with pytest.raises(RecordRejectedError) as caught:
        to_row(item, DIMENSION)
    return caught.value


def test_a_real_record_maps_to_every_column(record: dict[str, Any]) -> None:
    row = to_row(VectorRecord(record, vector_for("x")), DIMENSION).values
    assert row["chunk_id"] == record["chunk_id"]
    assert (row["tenant"], row["acl"]) == ("acme", ["staff"])
    assert row["ingestion_version"] == record["metadata"]["ingestion_version"]
    assert json.loads(row["metadata"]) == record["metadata"]
    assert record_from_row({**row, "metadata": json.loads(row["metadata"])}) == record


def test_varchar_limit_is_65535_utf8_bytes(record: dict[str, Any]) -> None:
    fits = "é" * 32_767 + "a"  # 65,535 bytes, 32,768 characters
    assert to_row(_with(record, text=fits), DIMENSION).values["text"] == fits
    error = _rejection(_with(record, text="é" * 32_768))  # 65,536 bytes
    assert isinstance(error, RecordTooLargeError) and isinstance(error, StoreError)
    assert (error.chunk_id, error.field, error.size, error.limit) == (
        record["chunk_id"],
        "text",
        65_536,
        65_535,
    )
    assert record["chunk_id"] in str(error) and "'text'" in str(error)
    assert "65,536 bytes" in str(error)


@pytest.mark.parametrize("field", ["section", "source", "document_id"])
def test_every_varchar_column_is_checked(record: dict[str, Any], field: str) -> None:
    assert _rejection(_with(record, **{field: "x" * 65_536})).field == field


def test_tenant_and_acl_entries_are_checked(record: dict[str, Any]) -> None:
    assert _rejection(_with(record, metadata={"tenant": "t" * 65_536})).field == "tenant"
    assert _rejection(_with(record, metadata={"acl": ["g" * 65_536]})).field == "acl"
    error = _rejection(_with(record, metadata={"acl": [f"g{i}" for i in range(4_097)]}))
    assert isinstance(error, RecordTooLargeError) and error.size == 4_097


def test_metadata_json_limit_is_65536_serialized_bytes(record: dict[str, Any]) -> None:
    base = dict(record["metadata"])
    probe = json.dumps(
        {**base, "pad": ""}, ensure_ascii=False, sort_keys=True, separators=(",", ":")
    )
    room = 65_536 - len(probe.encode())
    row = to_row(_with(record, metadata={"pad": "x" * room}), DIMENSION).values
    assert len(row["metadata"].encode()) == 65_536
    error = _rejection(_with(record, metadata={"pad": "x" * (room + 1)}))
    assert isinstance(error, RecordTooLargeError)
    assert (error.field, error.size, error.limit) == ("metadata", 65_537, 65_536)


def test_the_embedding_is_stored_as_the_vector_not_twice(record: dict[str, Any]) -> None:
    embedded = {**record, "metadata": {**record["metadata"], "embedding": list(vector_for("e"))}}
    item = VectorRecord.from_record(embedded)
    row = to_row(item, DIMENSION).values
    assert row["vector"] == list(vector_for("e"))
    assert "embedding" not in json.loads(row["metadata"])


@pytest.mark.parametrize(
    ("vector", "reason"),
    [
        ((), "is missing"),
        (vector_for("x", DIMENSION + 1), "has 17 dimensions"),
        ((math.nan,) * DIMENSION, "NaN"),
        (("a",) * DIMENSION, "numbers only"),
    ],
)
def test_bad_vectors_are_rejected(
    record: dict[str, Any], vector: tuple[Any, ...], reason: str
) -> None:
    error = _rejection(VectorRecord(record, vector))
    assert error.field == "vector" and reason in str(error)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"page": "3"}, "page"),
        ({"char_start": True}, "char_start"),
        ({"token_estimate": None}, "token_estimate"),
        ({"text": None}, "text"),
        ({"metadata": {"acl": [1]}}, "acl"),
        ({"metadata": {"tenant": 7}}, "tenant"),
        ({"metadata": {"bad": {1, 2}}}, "metadata"),
    ],
)
def test_wrong_types_are_rejected_not_coerced(
    record: dict[str, Any], changes: dict[str, Any], field: str
) -> None:
    assert _rejection(_with(record, **changes)).field == field


def test_a_missing_field_is_named(record: dict[str, Any]) -> None:
    partial = {key: value for key, value in record.items() if key != "section"}
    assert _rejection(VectorRecord(partial, vector_for("x"))).field == "section"
    assert _rejection(VectorRecord({"text": "x"}, vector_for("x"))).chunk_id == "?"


def test_one_acl_string_is_one_group(record: dict[str, Any]) -> None:
    row = to_row(_with(record, metadata={"acl": "staff"}), DIMENSION).values
    assert row["acl"] == ["staff"]
    bare = {k: v for k, v in record["metadata"].items() if k not in {"tenant", "acl"}}
    row = to_row(VectorRecord({**record, "metadata": bare}, vector_for("x")), None).values
    assert (row["tenant"], row["acl"]) == ("", [])
