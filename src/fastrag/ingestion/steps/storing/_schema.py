"""The collection's schema as one table, how to create it, and how to check an existing one.

One row per field: the JSONL record's fields (``RECORD_KEYS``) get a column each, so a
stored row turns back into its record exactly; ``tenant``, ``acl`` and
``ingestion_version`` are lifted out of the record's metadata into their own columns
because the store filters and deletes by them. ``acl`` is an ARRAY of VARCHAR — the type
``array_contains_any`` filters on in both Milvus Lite and a server (a JSON list would
need ``json_contains_any`` and cannot take a scalar index).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from fastrag.ingestion.steps.storing._limits import MAX_ARRAY_CAPACITY, MAX_VARCHAR_BYTES
from fastrag.ingestion.steps.storing.errors import SchemaMismatchError

__all__ = [
    "FIELDS",
    "METRICS",
    "PRIMARY_KEY",
    "SCALAR_FIELDS",
    "VECTOR_FIELD",
    "Field",
    "build_schema",
    "check_schema",
    "index_params",
]

PRIMARY_KEY: Final = "chunk_id"
VECTOR_FIELD: Final = "vector"
METRICS: Final = frozenset({"COSINE", "IP", "L2"})


@dataclass(frozen=True, slots=True)
class Field:
    """One column: its name, its Milvus type name, and whether it may hold null."""

    name: str
    dtype: str
    nullable: bool = False
    element: str | None = None
    """The element type of an ARRAY column."""


FIELDS: Final = (
    Field(PRIMARY_KEY, "VARCHAR"),
    Field(VECTOR_FIELD, "FLOAT_VECTOR"),
    Field("text", "VARCHAR"),
    Field("document_id", "VARCHAR"),
    Field("source", "VARCHAR"),
    Field("source_type", "VARCHAR"),
    Field("ingestion_version", "VARCHAR"),
    Field("tenant", "VARCHAR"),
    Field("acl", "ARRAY", element="VARCHAR"),
    Field("page", "INT64", nullable=True),
    Field("section", "VARCHAR"),
    Field("char_start", "INT64", nullable=True),
    Field("char_end", "INT64", nullable=True),
    Field("token_estimate", "INT64"),
    Field("metadata", "JSON"),
)

SCALAR_FIELDS: Final = frozenset(
    field.name for field in FIELDS if field.dtype not in {"FLOAT_VECTOR", "JSON", "ARRAY"}
)
"""Columns a caller may filter on with equality (``search(where=...)``)."""


def build_schema(pymilvus: Any, dimension: int) -> Any:
    """The pymilvus ``CollectionSchema`` of ``FIELDS`` for vectors of ``dimension``."""
    data_type = pymilvus.DataType
    schema = pymilvus.MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    for field in FIELDS:
        dtype = getattr(data_type, field.dtype)
        options: dict[str, Any] = {}
        if field.name == PRIMARY_KEY:
            options["is_primary"] = True
        if field.dtype == "VARCHAR":
            options["max_length"] = MAX_VARCHAR_BYTES
        elif field.dtype == "FLOAT_VECTOR":
            options["dim"] = dimension
        elif field.dtype == "ARRAY":
            options["element_type"] = getattr(data_type, str(field.element))
            options["max_capacity"] = MAX_ARRAY_CAPACITY
            options["max_length"] = MAX_VARCHAR_BYTES
        if field.nullable:
            options["nullable"] = True
        schema.add_field(field.name, dtype, **options)
    return schema


def index_params(client: Any, metric: str) -> Any:
    """The vector index: ``AUTOINDEX`` lets each backend pick its own, under ``metric``."""
    params = client.prepare_index_params()
    params.add_index(VECTOR_FIELD, index_type="AUTOINDEX", metric_type=metric)
    return params


def _type_name(value: Any) -> str:
    return str(getattr(value, "name", value))


def check_schema(
    collection: str,
    description: Mapping[str, Any],
    index: Mapping[str, Any] | None,
    *,
    dimension: int | None,
    metric: str,
) -> int:
    """Check an existing collection against ``FIELDS``; return its vector dimension.

    Refuses, before anything is written, a collection made by another program or another
    embedding model: a missing or extra field, a different type, a primary key other than
    ``chunk_id``, another dimension than the one asked for, or another metric.
    """
    found = {str(field["name"]): field for field in description.get("fields", ())}
    expected = {field.name: field for field in FIELDS}
    fix = (
        f"use another collection name, or drop {collection!r} if it holds nothing you need "
        "(re-ingest to rebuild it)"
    )
    if set(found) != set(expected):
        missing = sorted(set(expected) - set(found))
        extra = sorted(set(found) - set(expected))
        raise SchemaMismatchError(
            f"collection {collection!r} has a different schema (missing fields {missing}, "
            f"unexpected fields {extra}); it was not created by fastrag's MilvusStore: {fix}"
        )
    for name, field in expected.items():
        actual = found[name]
        kind = _type_name(actual.get("type"))
        element = actual.get("element_type")
        if kind != field.dtype or (field.element and _type_name(element) != field.element):
            raise SchemaMismatchError(
                f"collection {collection!r} field {name!r} is {kind}, not {field.dtype}: {fix}"
            )
    if not found[PRIMARY_KEY].get("is_primary"):
        raise SchemaMismatchError(
            f"collection {collection!r} does not use {PRIMARY_KEY!r} as its primary key: {fix}"
        )
    existing = int(found[VECTOR_FIELD].get("params", {}).get("dim", 0))
    if dimension is not None and existing != dimension:
        raise SchemaMismatchError(
            f"collection {collection!r} holds {existing}-dimensional vectors but the store was "
            f"opened with dimension={dimension}; vectors from different embedding models "
            f"cannot share an index: {fix}"
        )
    used = None if index is None else index.get("metric_type")
    if used is not None and str(used).upper() != metric:
        raise SchemaMismatchError(
            f"collection {collection!r} is indexed with metric {used!r}, not {metric!r}; "
            f"open it with metric={str(used).upper()!r} or {fix}"
        )
    return existing
