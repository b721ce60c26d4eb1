"""Storing: chunk records and their vectors in a searchable, tenant-safe index.

``MilvusStore`` writes JSONL records (``fastrag.ingestion.records``) paired with their
vectors (``VectorRecord``) into Milvus — an embedded Milvus Lite file by default, a
Milvus server by URI — and searches them with the tenant/ACL filter inside the query.
``pymilvus`` is imported only when a store first connects (``fastrag-ai[milvus]``).
"""

from fastrag.ingestion.steps.storing._rows import VectorRecord
from fastrag.ingestion.steps.storing.errors import (
    RecordRejectedError,
    RecordTooLargeError,
    SchemaMismatchError,
    StoreError,
)
from fastrag.ingestion.steps.storing.milvus import MilvusStore
from fastrag.ingestion.steps.storing.results import SearchHit, UpsertError, UpsertResult

__all__ = [
    "MilvusStore",
    "RecordRejectedError",
    "RecordTooLargeError",
    "SchemaMismatchError",
    "SearchHit",
    "StoreError",
    "UpsertError",
    "UpsertResult",
    "VectorRecord",
]
