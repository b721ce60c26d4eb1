"""A hybrid collection's sentence vectors: one row per sentence of each chunk, beside it.

Why a second collection: a hybrid search scores a chunk by its best sentence too (the
``fastrag eval`` setting ``embed = "fuse_sentences"``, docs/benchmarking.md), and "the
best of a chunk's sentence vectors" is a maximum, which no single stored vector can
hold. Milvus's arrays of structs would (``MAX_SIM``), but Milvus Lite does not support
them; a collection of sentence rows searched with ``group_by_field="chunk_id"`` gives
each chunk's best sentence exactly, on Lite and on a server.

A sentence row carries the columns that decide *who may see* a chunk (``tenant``,
``acl``) and *which generation it belongs to* (``document_id``, ``source``,
``ingestion_version``), copied from its chunk's row, so the store filters and deletes
sentences with the same expressions as chunks. Other ``where`` conditions of a search
are enforced on the chunk side only (a sentence hit only nominates its chunk; the chunk
itself is then read through the full filter). Sentence ids are ``<chunk id>#<n>``: a
chunk id names the chunk's exact text, so re-sending a chunk rewrites the same rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from fastrag.ingestion.steps.storing import _expression as expr
from fastrag.ingestion.steps.storing._limits import MAX_ARRAY_CAPACITY, MAX_VARCHAR_BYTES
from fastrag.ingestion.steps.storing._schema import PRIMARY_KEY, VECTOR_FIELD
from fastrag.ingestion.steps.storing.errors import SchemaMismatchError

__all__ = [
    "SENTENCE_FIELDS",
    "SENTENCE_KEY",
    "SENTENCE_METRIC",
    "SentenceCall",
    "best_sentences",
    "build_sentence_schema",
    "check_sentence_schema",
    "sentence_collection",
    "sentence_index_params",
    "sentence_rows",
]

SENTENCE_KEY: Final = "sentence_id"
SENTENCE_METRIC: Final = "IP"
"""Unit vectors: inner product is the cosine."""

SENTENCE_FIELDS: Final = (
    (SENTENCE_KEY, "VARCHAR"),
    (PRIMARY_KEY, "VARCHAR"),
    (VECTOR_FIELD, "FLOAT_VECTOR"),
    ("document_id", "VARCHAR"),
    ("source", "VARCHAR"),
    ("ingestion_version", "VARCHAR"),
    ("tenant", "VARCHAR"),
    ("acl", "ARRAY"),
)
_COPIED: Final = tuple(name for name, _ in SENTENCE_FIELDS[3:])

SentenceCall = Callable[..., Any]
"""``MilvusStore._call``: (action, client method, *args, **kwargs) -> result."""


def sentence_collection(collection: str) -> str:
    """The sentence collection that belongs to the hybrid collection ``collection``."""
    return f"{collection}_sentences"


def build_sentence_schema(pymilvus: Any, dimension: int) -> Any:
    """The pymilvus schema of sentence rows of ``dimension``-d vectors."""
    data_type = pymilvus.DataType
    schema = pymilvus.MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    for name, dtype in SENTENCE_FIELDS:
        options: dict[str, Any] = {}
        if name == SENTENCE_KEY:
            options["is_primary"] = True
        if dtype == "VARCHAR":
            options["max_length"] = MAX_VARCHAR_BYTES
        elif dtype == "FLOAT_VECTOR":
            options["dim"] = dimension
        elif dtype == "ARRAY":
            options.update(
                element_type=data_type.VARCHAR,
                max_capacity=MAX_ARRAY_CAPACITY,
                max_length=MAX_VARCHAR_BYTES,
            )
        schema.add_field(name, getattr(data_type, dtype), **options)
    return schema


def sentence_index_params(client: Any) -> Any:
    """The sentence vectors' index (each backend picks its own), inner product."""
    params = client.prepare_index_params()
    params.add_index(VECTOR_FIELD, index_type="AUTOINDEX", metric_type=SENTENCE_METRIC)
    return params


def check_sentence_schema(name: str, description: Mapping[str, Any], dimension: int) -> None:
    """Refuse a sentence collection fastrag did not make (or for another dimension)."""
    found = {str(field["name"]): field for field in description.get("fields", ())}
    if set(found) != {field for field, _ in SENTENCE_FIELDS}:
        raise SchemaMismatchError(
            f"collection {name!r} is not a fastrag sentence collection (fields "
            f"{sorted(found)}); drop it or use another collection name for the hybrid store"
        )
    existing = int(found[VECTOR_FIELD].get("params", {}).get("dim", 0))
    if existing != dimension:
        raise SchemaMismatchError(
            f"collection {name!r} holds {existing}-dimensional sentence vectors but its "
            f"chunks are {dimension}-dimensional; drop both collections and re-ingest"
        )


def sentence_rows(
    chunk: Mapping[str, Any], vectors: Sequence[Sequence[float]]
) -> list[dict[str, Any]]:
    """The rows of one chunk's sentence vectors, from the chunk's own (checked) row."""
    chunk_id = str(chunk[PRIMARY_KEY])
    shared = {name: chunk[name] for name in _COPIED}
    return [
        {
            SENTENCE_KEY: f"{chunk_id}#{number}",
            PRIMARY_KEY: chunk_id,
            VECTOR_FIELD: [float(x) for x in vector],
            **shared,
        }
        for number, vector in enumerate(vectors)
    ]


def best_sentences(
    call: SentenceCall,
    name: str,
    vector: Sequence[float],
    visible: str,
    limit: int,
    chunk_ids: Sequence[str] = (),
) -> dict[str, float]:
    """Each chunk's best sentence cosine with ``vector``, for the ``limit`` best chunks.

    ``visible``: the tenant/ACL filter (``""``: none); ``chunk_ids`` restricts the
    search to those chunks (to score candidates another ranking found).
    """
    clauses = [visible] if visible else []
    if chunk_ids:
        clauses.append(expr.one_of(PRIMARY_KEY, list(chunk_ids)))
    results = call(
        "search sentence vectors",
        "search",
        name,
        data=[list(vector)],
        anns_field=VECTOR_FIELD,
        limit=limit,
        filter=expr.all_of(clauses),
        group_by_field=PRIMARY_KEY,
        output_fields=[PRIMARY_KEY],
        search_params={"metric_type": SENTENCE_METRIC},
    )
    best: dict[str, float] = {}
    for hit in results[0] if results else ():
        chunk_id = str((hit.get("entity") or {}).get(PRIMARY_KEY, ""))
        if chunk_id and chunk_id not in best:
            best[chunk_id] = float(hit["distance"])
    return best
