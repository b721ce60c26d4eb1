"""``InMemoryCacheStore``: a process-local cache with the same replay semantics as SQLite.

Entries are kept in their serialized JSON form rather than as the live objects: a list
nested in a cached chunk's metadata can then never be mutated by a consumer behind the
cache's back, and a value the persistent store could not hold fails here too, so a test
against this store predicts the SQLite store's behaviour.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from fastrag.models import Document
from fastrag.pipeline.cache._codec import decode_metadata, encode_metadata
from fastrag.pipeline.cache.base import CacheStore, DocumentHeader

__all__ = ["InMemoryCacheStore"]

# (id, source_id, metadata JSON, content) per produced document.
_Row = tuple[str, str, str, str]


class InMemoryCacheStore(CacheStore):
    """A dict of serialized entries behind a lock (safe across threads and tasks)."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[_Row, ...]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Number of cached entries (input items), not of documents."""
        return len(self._entries)

    def get_headers(self, keys: Sequence[str]) -> dict[str, tuple[DocumentHeader, ...]]:
        found = self._rows(keys)
        return {
            key: tuple(DocumentHeader(row[0], row[1], decode_metadata(row[2])) for row in rows)
            for key, rows in found.items()
        }

    def get_documents(self, keys: Sequence[str]) -> dict[str, tuple[Document, ...]]:
        found = self._rows(keys)
        return {
            key: tuple(Document(row[0], row[1], row[3], decode_metadata(row[2])) for row in rows)
            for key, rows in found.items()
        }

    def put(self, key: str, documents: Sequence[Document]) -> None:
        rows = tuple(
            (doc.id, doc.source_id, encode_metadata(doc.metadata, doc.id), doc.content)
            for doc in documents
        )
        with self._lock:
            self._entries[key] = rows

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()

    def _rows(self, keys: Sequence[str]) -> dict[str, tuple[_Row, ...]]:
        with self._lock:
            return {key: self._entries[key] for key in keys if key in self._entries}
