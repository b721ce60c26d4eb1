"""The collection's schema as one table, how to create it, and how to check an existing one.

One row per field: the JSONL record's fields (``RECORD_KEYS``) get a column each, so a
stored row turns back into its record exactly; ``tenant``, ``acl`` and
``ingestion_version`` are lifted out of the record's metadata into their own columns
because the store filters and deletes by them. ``acl`` is an ARRAY of VARCHAR — the type
``array_contains_any`` filters on in both Milvus Lite and a server (a JSON list would
need ``json_contains_any`` and cannot take a scalar index).

Two retrieval modes, recorded by the schema itself (so a reader needs no flag):

- ``dense`` (``FIELDS``): one vector per chunk, the chunk's embedding text, ranked by
  cosine. The default, unchanged.
- ``hybrid`` (``HYBRID_FIELDS``): also the chunk's context window as text
  (``WINDOW_FIELD``, analyzed for full-text search) and the BM25 sparse vector Milvus
  derives from it (``SPARSE_FIELD``, by the schema's BM25 function). The dense vector
  is the mean of the chunk's and the window's embeddings, ranked by inner product, so
  a query's score is the mean of its two cosines (``embed = "fuse"`` in ``fastrag
  eval``). The window's analyzer is Milvus's ``standard`` tokenizer, lowercased,
  without ``STOP_WORDS`` (the English list ``fastrag eval``'s BM25 drops).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from fastrag.ingestion.steps.storing._limits import MAX_ARRAY_CAPACITY, MAX_VARCHAR_BYTES
from fastrag.ingestion.steps.storing.errors import SchemaMismatchError

__all__ = [
    "BM25_FUNCTION",
    "FIELDS",
    "HYBRID_FIELDS",
    "HYBRID_METRIC",
    "METRICS",
    "PRIMARY_KEY",
    "RETRIEVAL_MODES",
    "SCALAR_FIELDS",
    "SPARSE_FIELD",
    "STOP_WORDS",
    "VECTOR_FIELD",
    "WINDOW_FIELD",
    "Field",
    "Retrieval",
    "build_schema",
    "check_schema",
    "fields_for",
    "index_params",
    "schema_retrieval",
]

PRIMARY_KEY: Final = "chunk_id"
VECTOR_FIELD: Final = "vector"
METRICS: Final = frozenset({"COSINE", "IP", "L2"})

Retrieval = Literal["dense", "hybrid"]
RETRIEVAL_MODES: Final[tuple[Retrieval, ...]] = get_args(Retrieval)

WINDOW_FIELD: Final = "window"
SPARSE_FIELD: Final = "window_sparse"
BM25_FUNCTION: Final = "window_bm25"
HYBRID_METRIC: Final = "IP"
"""A hybrid collection's dense metric: the stored vector is ``(v_chunk + v_window) / 2``
of unit vectors, and its inner product with a unit query is the mean of the two
cosines (cosine would divide by the mean vector's length, another ranking)."""

STOP_WORDS: Final = (
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into",
    "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then",
    "there", "these", "they", "this", "to", "was", "will", "with",
)  # fmt: skip
"""Words BM25 ignores: Lucene's English list, the one ``fastrag eval`` uses (``bm25s``'s
``stopwords="english"``; a unit test holds them equal)."""

ANALYZER: Final = {
    "tokenizer": "standard",
    "filter": ["lowercase", {"type": "stop", "stop_words": list(STOP_WORDS)}],
}
"""The window's full-text analyzer. Milvus Lite has no ``english`` analyzer type; this
is its ``standard`` tokenizer (Unicode word boundaries) with the same stop list."""


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

HYBRID_FIELDS: Final = (
    *FIELDS,
    Field(WINDOW_FIELD, "VARCHAR"),
    Field(SPARSE_FIELD, "SPARSE_FLOAT_VECTOR"),
)

SCALAR_FIELDS: Final = frozenset(
    field.name for field in FIELDS if field.dtype not in {"FLOAT_VECTOR", "JSON", "ARRAY"}
)
"""Columns a caller may filter on with equality (``search(where=...)``)."""


def fields_for(retrieval: Retrieval) -> tuple[Field, ...]:
    """The columns of a collection of ``retrieval`` mode."""
    return HYBRID_FIELDS if retrieval == "hybrid" else FIELDS


def schema_retrieval(description: Mapping[str, Any]) -> Retrieval:
    """The retrieval mode an existing collection was created for (its schema says)."""
    names = {str(field.get("name")) for field in description.get("fields", ())}
    return "hybrid" if SPARSE_FIELD in names else "dense"


def build_schema(pymilvus: Any, dimension: int, retrieval: Retrieval = "dense") -> Any:
    """The pymilvus ``CollectionSchema`` of ``retrieval``'s fields for vectors of ``dimension``.

    A hybrid schema also carries the BM25 function that fills ``SPARSE_FIELD`` from
    ``WINDOW_FIELD`` on every insert (Milvus computes the sparse vector, not us).
    """
    data_type = pymilvus.DataType
    schema = pymilvus.MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    for field in fields_for(retrieval):
        dtype = getattr(data_type, field.dtype)
        options: dict[str, Any] = {}
        if field.name == PRIMARY_KEY:
            options["is_primary"] = True
        if field.name == WINDOW_FIELD:
            options.update(enable_analyzer=True, analyzer_params=ANALYZER)
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
    if retrieval == "hybrid":
        schema.add_function(
            pymilvus.Function(
                name=BM25_FUNCTION,
                function_type=pymilvus.FunctionType.BM25,
                input_field_names=[WINDOW_FIELD],
                output_field_names=[SPARSE_FIELD],
            )
        )
    return schema


def index_params(client: Any, metric: str, retrieval: Retrieval = "dense") -> Any:
    """The vector index: ``AUTOINDEX`` lets each backend pick its own, under ``metric``;
    a hybrid collection adds the BM25 index of its windows' sparse vectors."""
    params = client.prepare_index_params()
    params.add_index(VECTOR_FIELD, index_type="AUTOINDEX", metric_type=metric)
    if retrieval == "hybrid":
        params.add_index(SPARSE_FIELD, index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
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
    retrieval: Retrieval = "dense",
) -> int:
    """Check an existing collection against ``retrieval``'s fields; return its dimension.

    Refuses, before anything is written, a collection made by another program or another
    embedding model: a missing or extra field, a different type, a primary key other than
    ``chunk_id``, another dimension than the one asked for, or another metric. A
    collection of the other retrieval mode is refused with its own message: a dense
    collection has no windows to search, and a hybrid one needs every chunk's window.
    """
    found = {str(field["name"]): field for field in description.get("fields", ())}
    expected = {field.name: field for field in fields_for(retrieval)}
    fix = (
        f"use another collection name, or drop {collection!r} if it holds nothing you need "
        "(re-ingest to rebuild it)"
    )
    other: Retrieval = "dense" if retrieval == "hybrid" else "hybrid"
    if set(found) == {field.name for field in fields_for(other)}:
        raise SchemaMismatchError(
            f"collection {collection!r} was built for {other} retrieval, not {retrieval}; "
            f"one collection holds one mode: use a new collection or store file for "
            f"--retrieval {retrieval} (re-ingest into it), or keep --retrieval {other}"
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
