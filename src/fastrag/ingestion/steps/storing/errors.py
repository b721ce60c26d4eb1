"""The store's errors: a store-level failure, a schema mismatch, a rejected record.

A ``RecordRejectedError`` concerns one record and never stops a batch: ``upsert`` stores
the other records and returns each rejection (``UpsertResult.rejected``) so the ingest
run can record the outcome per document. The other errors concern the store as a whole
(unreachable, locked, incompatible) and are raised.
"""

from __future__ import annotations

from fastrag.exceptions import FastragError

__all__ = ["RecordRejectedError", "RecordTooLargeError", "SchemaMismatchError", "StoreError"]


class StoreError(FastragError):
    """The vector store failed or refused an operation; the message names the fix."""


class SchemaMismatchError(StoreError):
    """An existing collection's schema is not the one this store writes (field, dimension,
    metric); raised on open, before anything is written."""


class RecordRejectedError(StoreError):
    """One record cannot be stored as it is (a missing field, a wrong type, a bad vector).

    ``chunk_id`` and ``field`` name the record and the offending field so the rejection can
    be recorded against its document.
    """

    def __init__(self, chunk_id: str, field: str, message: str) -> None:
        self.chunk_id = chunk_id
        self.field = field
        super().__init__(f"chunk {chunk_id!r}: field {field!r} {message}")


class RecordTooLargeError(RecordRejectedError):
    """A field exceeds what a Milvus server accepts (Milvus Lite would accept it silently).

    Raised instead of truncating or dropping anything: seed 000 requires the store to
    reject metadata it cannot hold. ``size`` and ``limit`` are in bytes (UTF-8 for a
    VARCHAR, the serialized JSON for the metadata) or in entries (for the ACL array).
    """

    def __init__(self, chunk_id: str, field: str, size: int, limit: int, unit: str) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            chunk_id,
            field,
            f"is {size:,} {unit}, over the Milvus limit of {limit:,} {unit}; shorten it at "
            "the source (smaller chunks, fewer metadata fields) — the store never truncates",
        )
