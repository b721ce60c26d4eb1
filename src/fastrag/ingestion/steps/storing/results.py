"""What the store's operations return: per-record upsert outcomes and search hits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fastrag.ingestion.steps.storing.errors import RecordRejectedError, StoreError

__all__ = ["SearchHit", "UpsertError", "UpsertResult"]


@dataclass(frozen=True, slots=True)
class UpsertResult:
    """The outcome of one ``upsert`` call, per record.

    ``stored`` lists the chunk ids written (in input order); ``rejected`` holds one
    ``RecordRejectedError`` per record that was not written, each naming its chunk id,
    field and reason. Every input record is in exactly one of the two, so an ingest run
    can mark each document indexed or failed — a rejection never hides the others.
    """

    stored: tuple[str, ...] = ()
    rejected: tuple[RecordRejectedError, ...] = ()

    @property
    def ok(self) -> bool:
        """True when every record was stored."""
        return not self.rejected

    def raise_for_rejected(self) -> None:
        """Raise the first rejection (for callers that want all-or-error semantics)."""
        if self.rejected:
            raise self.rejected[0]


class UpsertError(StoreError):
    """The store failed while writing a batch (not a record's fault: the server, the file).

    ``result`` says what had been stored and rejected before the failure, so a caller
    can clean up or retry only what is missing.
    """

    def __init__(self, message: str, result: UpsertResult) -> None:
        self.result = result
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result: the chunk, where it came from, and its score.

    ``score`` is what Milvus reports for the store's metric: a similarity for ``COSINE``
    and ``IP`` (higher is closer), a distance for ``L2`` (lower is closer); from
    ``MilvusStore.hybrid_search``, the reciprocal-rank-fusion score (higher is better,
    at most ``2 / 61``). Offsets are
    half-open code-point offsets into the parsed document (``None`` when unknown).
    """

    chunk_id: str
    score: float
    text: str
    document_id: str
    source: str
    page: int | None
    section: str
    char_start: int | None
    char_end: int | None
    tenant: str
    acl: tuple[str, ...]
    ingestion_version: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
