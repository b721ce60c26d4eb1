"""A JSONL record plus its vector → one Milvus row, checked against the server's limits.

Every check names the chunk and the field and raises ``RecordRejectedError`` (or
``RecordTooLargeError``), which ``MilvusStore.upsert`` turns into a per-record rejection.
Nothing is truncated, coerced or dropped, with one documented exception: the metadata key
``embedding`` (the vector an embedder attached to the chunk) is not stored a second time
inside the metadata JSON, because the row's vector column holds exactly those values.

A hybrid collection's row also holds the chunk's context window (``VectorRecord.window``),
the text its BM25 index reads; it is stored, never returned as the chunk's text.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from fastrag.ingestion.records import RECORD_KEYS
from fastrag.ingestion.steps.storing._limits import (
    MAX_ARRAY_CAPACITY,
    MAX_JSON_BYTES,
    MAX_VARCHAR_BYTES,
)
from fastrag.ingestion.steps.storing._schema import WINDOW_FIELD, Retrieval
from fastrag.ingestion.steps.storing.errors import RecordRejectedError, RecordTooLargeError

__all__ = ["EMBEDDING_KEY", "Row", "VectorRecord", "record_from_row", "to_row"]

EMBEDDING_KEY: Final = "embedding"
"""The chunk metadata key an embedder stores the vector under."""

_TEXT_FIELDS: Final = ("document_id", "source", "source_type", "section", "text")
_OPTIONAL_INTS: Final = ("page", "char_start", "char_end")
_INT64: Final = 2**63


@dataclass(frozen=True, slots=True)
class VectorRecord:
    """A JSONL record (``fastrag.ingestion.records.build_record``) and its vector.

    ``window``: the chunk's context window, required by a hybrid collection (which
    indexes it for BM25) and refused by a dense one; ``vector`` is then the fused
    ``(v_chunk + v_window) / 2`` (see ``fastrag.ingestion.steps.storing._schema``).
    Not validated on construction: ``MilvusStore.upsert`` checks each one and rejects only
    the offending record, so one bad chunk cannot stop the rest of a batch.
    """

    record: Mapping[str, Any]
    vector: Sequence[float]
    window: str | None = None
    sentences: Sequence[Sequence[float]] | None = None
    """The vectors of the chunk's sentences (``fastrag.retrieval.sentences``), in order:
    required by a hybrid collection (its best sentence is part of a chunk's score),
    refused by a dense one."""

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> VectorRecord:
        """Pair ``record`` with the vector an embedder left in ``metadata["embedding"]``."""
        metadata = record.get("metadata")
        vector = metadata.get(EMBEDDING_KEY) if isinstance(metadata, Mapping) else None
        return cls(record, vector if isinstance(vector, Sequence) else ())

    @property
    def chunk_id(self) -> str:
        """The record's chunk id as given (``"?"`` when it has none), for rejections."""
        value = self.record.get("chunk_id") if isinstance(self.record, Mapping) else None
        return value if isinstance(value, str) else "?"


@dataclass(frozen=True, slots=True)
class Row:
    """A checked row and its approximate wire size (for byte-bounded batches)."""

    chunk_id: str
    values: dict[str, Any]
    size: int
    sentences: tuple[list[float], ...] = ()
    """A hybrid row's checked sentence vectors (written to the sentence collection)."""


def _varchar(chunk_id: str, field: str, value: object) -> str:
    if not isinstance(value, str):
        raise RecordRejectedError(chunk_id, field, f"must be a str (got {type(value).__name__})")
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > MAX_VARCHAR_BYTES:
        raise RecordTooLargeError(chunk_id, field, size, MAX_VARCHAR_BYTES, "bytes")
    return value


def _int(chunk_id: str, field: str, value: object, *, nullable: bool) -> int | None:
    if value is None and nullable:
        return None
    if type(value) is not int or not -_INT64 <= value < _INT64:
        raise RecordRejectedError(
            chunk_id,
            field,
            f"must be a 64-bit int{' or null' if nullable else ''} (got {type(value).__name__})",
        )
    return value


def _acl(chunk_id: str, value: object) -> list[str]:
    """The ACL as a list of groups: absent → none, one str → one group."""
    if value is None:
        return []
    groups = [value] if isinstance(value, str) else value
    if not isinstance(groups, list | tuple) or not all(isinstance(g, str) for g in groups):
        raise RecordRejectedError(
            chunk_id, "acl", f"must be a str or a list of str (got {type(value).__name__})"
        )
    if len(groups) > MAX_ARRAY_CAPACITY:
        raise RecordTooLargeError(chunk_id, "acl", len(groups), MAX_ARRAY_CAPACITY, "entries")
    return [_varchar(chunk_id, "acl", group) for group in groups]


def _metadata_json(chunk_id: str, metadata: Mapping[str, Any]) -> str:
    """The metadata as the exact JSON text sent to Milvus (its size is what the server sees)."""
    kept = {key: value for key, value in metadata.items() if key != EMBEDDING_KEY}
    try:
        text = json.dumps(
            kept, ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":")
        )
    except (TypeError, ValueError) as error:
        raise RecordRejectedError(
            chunk_id,
            "metadata",
            f"is not JSON-serializable ({error}); build records with "
            "fastrag.ingestion.records.build_record",
        ) from error
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_JSON_BYTES:
        raise RecordTooLargeError(chunk_id, "metadata", size, MAX_JSON_BYTES, "bytes")
    return text


def _vector(
    chunk_id: str, vector: object, dimension: int | None, field: str = "vector"
) -> list[float]:
    """The checked values of a chunk's vector (``field`` names it in a rejection: a
    sentence vector is ``sentences[n]``)."""
    if not isinstance(vector, Sequence) or isinstance(vector, str) or not vector:
        raise RecordRejectedError(
            chunk_id,
            field,
            "is missing; embed the chunk first (an embedder step sets "
            f"metadata[{EMBEDDING_KEY!r}])",
        )
    if dimension is not None and len(vector) != dimension:
        raise RecordRejectedError(
            chunk_id,
            field,
            f"has {len(vector)} dimensions but the collection holds "
            f"{dimension}-dimensional vectors; use the same embedding model for one collection",
        )
    try:
        values = [float(x) for x in vector]
    except (TypeError, ValueError) as error:
        raise RecordRejectedError(chunk_id, field, "must hold numbers only") from error
    if not all(math.isfinite(x) for x in values):
        raise RecordRejectedError(chunk_id, field, "holds a NaN or infinite value")
    return values


def _window(chunk_id: str, window: object, retrieval: Retrieval) -> str | None:
    """The window column's value: required in a hybrid collection, refused in a dense one."""
    if retrieval == "dense":
        if window is not None:
            raise RecordRejectedError(
                chunk_id,
                WINDOW_FIELD,
                "is given but the collection is dense (no window column); store it in a "
                "hybrid collection or leave VectorRecord.window None",
            )
        return None
    if window is None:
        raise RecordRejectedError(
            chunk_id,
            WINDOW_FIELD,
            "is missing; a hybrid collection needs each chunk's context window "
            "(fastrag.retrieval.windows.chunk_windows)",
        )
    return _varchar(chunk_id, WINDOW_FIELD, window)


def to_row(item: VectorRecord, dimension: int | None, retrieval: Retrieval = "dense") -> Row:
    """The Milvus row of ``item`` for a ``retrieval`` collection; raises
    ``RecordRejectedError`` naming chunk and field."""
    record = item.record
    chunk_id = item.chunk_id
    if not isinstance(record, Mapping) or not chunk_id or chunk_id == "?":
        raise RecordRejectedError(chunk_id, "chunk_id", "must be a nonempty str")
    missing = [key for key in RECORD_KEYS if key not in record]
    if missing:
        raise RecordRejectedError(
            chunk_id,
            missing[0],
            f"is missing (the record lacks {missing}); build records "
            "with fastrag.ingestion.records.build_record",
        )
    metadata = record["metadata"]
    if not isinstance(metadata, Mapping):
        raise RecordRejectedError(chunk_id, "metadata", "must be a mapping")
    values: dict[str, Any] = {"chunk_id": _varchar(chunk_id, "chunk_id", chunk_id)}
    for field in _TEXT_FIELDS:
        values[field] = _varchar(chunk_id, field, record[field])
    for field in _OPTIONAL_INTS:
        values[field] = _int(chunk_id, field, record[field], nullable=True)
    values["token_estimate"] = _int(
        chunk_id, "token_estimate", record["token_estimate"], nullable=False
    )
    values["tenant"] = _varchar(chunk_id, "tenant", metadata.get("tenant", ""))
    values["acl"] = _acl(chunk_id, metadata.get("acl"))
    values["ingestion_version"] = _varchar(
        chunk_id, "ingestion_version", metadata.get("ingestion_version", "")
    )
    values["metadata"] = _metadata_json(chunk_id, metadata)
    values["vector"] = _vector(chunk_id, item.vector, dimension)
    window = _window(chunk_id, item.window, retrieval)
    if window is not None:
        values[WINDOW_FIELD] = window
    sentences = _sentences(chunk_id, item.sentences, len(values["vector"]), retrieval)
    size = sum(len(values[f]) for f in (*_TEXT_FIELDS, "metadata")) + 8 * len(values["vector"])
    size += len(window or "") + sum(8 * len(vector) + 256 for vector in sentences)
    return Row(chunk_id, values, size + sum(len(group) for group in values["acl"]) + 256, sentences)


def _sentences(
    chunk_id: str, sentences: object, dimension: int, retrieval: Retrieval
) -> tuple[list[float], ...]:
    """A hybrid row's sentence vectors (at least one, each like the chunk's vector)."""
    if retrieval == "dense":
        if sentences is not None:
            raise RecordRejectedError(
                chunk_id,
                "sentences",
                "is given but the collection is dense (no sentence vectors); store them "
                "in a hybrid collection or leave VectorRecord.sentences None",
            )
        return ()
    if not isinstance(sentences, Sequence) or isinstance(sentences, str) or not sentences:
        raise RecordRejectedError(
            chunk_id,
            "sentences",
            "is missing; a hybrid collection needs the vectors of each chunk's sentences "
            "(fastrag.retrieval.sentences.chunk_sentences, embedded with the chunk's model)",
        )
    return tuple(
        _vector(chunk_id, vector, dimension, f"sentences[{number}]")
        for number, vector in enumerate(sentences)
    )


def record_from_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The JSONL record a stored row came from (keys in ``RECORD_KEYS`` order).

    The metadata comes back without ``embedding`` (see the module docstring); everything
    else is exactly what was stored.
    """
    metadata = row.get("metadata")
    if isinstance(metadata, str | bytes):
        metadata = json.loads(metadata)
    values = {key: row.get(key) for key in RECORD_KEYS}
    values["metadata"] = dict(metadata) if isinstance(metadata, Mapping) else {}
    return values
