"""Turning search arguments into Milvus filter clauses, and Milvus hits into ``SearchHit``.

Only this package's own column names ever reach an expression as a field; every value
goes through ``_expression.literal``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.storing import _expression as expr
from fastrag.ingestion.steps.storing._schema import (
    FIELDS,
    PRIMARY_KEY,
    SCALAR_FIELDS,
    VECTOR_FIELD,
)
from fastrag.ingestion.steps.storing.results import SearchHit

__all__ = ["MAX_TOP_K", "OUTPUT_FIELDS", "WhereValue", "hit_from", "text_value", "where_clauses"]

MAX_TOP_K: Final = 16_384
"""A Milvus server's ``topK`` ceiling."""

OUTPUT_FIELDS: Final = tuple(f.name for f in FIELDS if f.name != VECTOR_FIELD)
"""Every column but the vector: what a hit or a record read back carries."""

WhereValue = str | int | Sequence[str] | Sequence[int]


def text_value(name: str, value: object) -> str:
    """``value`` if it is a str, else a ``ConfigurationError`` naming ``name``."""
    if not isinstance(value, str):
        raise ConfigurationError(
            f"{name} must be a str (got {type(value).__name__}: {value!r:.60})"
        )
    return value


def where_clauses(where: Mapping[str, WhereValue]) -> list[str] | None:
    """Equality / membership clauses on scalar columns; None when nothing can match."""
    clauses: list[str] = []
    for name, value in where.items():
        if name not in SCALAR_FIELDS:
            raise ConfigurationError(
                f"search where= may filter on {sorted(SCALAR_FIELDS)} (got {name!r})"
            )
        if isinstance(value, str | int):
            clauses.append(expr.equals(name, value))
        elif isinstance(value, Sequence) and all(isinstance(v, str | int) for v in value):
            if not value:
                return None
            clauses.append(expr.one_of(name, list(value)))
        else:
            raise ConfigurationError(
                f"search where[{name!r}] must be a str, an int or a list of them "
                f"(got {type(value).__name__})"
            )
    return clauses


def hit_from(hit: Mapping[str, Any]) -> SearchHit:
    """A pymilvus search hit (``distance`` and ``entity``) as a ``SearchHit``."""
    entity = hit.get("entity") or {}
    metadata = entity.get("metadata")
    if isinstance(metadata, str | bytes):
        metadata = json.loads(metadata)
    return SearchHit(
        chunk_id=str(entity.get(PRIMARY_KEY, hit.get("id"))),
        score=float(hit["distance"]),
        text=str(entity.get("text", "")),
        document_id=str(entity.get("document_id", "")),
        source=str(entity.get("source", "")),
        page=entity.get("page"),
        section=str(entity.get("section", "")),
        char_start=entity.get("char_start"),
        char_end=entity.get("char_end"),
        tenant=str(entity.get("tenant", "")),
        acl=tuple(str(group) for group in entity.get("acl") or ()),
        ingestion_version=str(entity.get("ingestion_version", "")),
        metadata=metadata if isinstance(metadata, Mapping) else {},
    )
