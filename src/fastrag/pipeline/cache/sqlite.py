"""``SqliteCacheStore``: the embedded persistent step cache — one SQLite file, WAL mode.

WAL lets any number of readers (in this or other processes) read while one writer
commits; each ``put`` is one transaction, so a reader sees a whole entry or none of it.
Documents are stored as JSON columns (``_codec``), never pickle: a cache file is untrusted.
The schema version lives in a table; a file that is not SQLite, not a fastrag cache, of
another schema version, or damaged (a row whose checksum or count does not match) raises
``CacheError`` naming the path and the fix — a cache never silently replays wrong output.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from fastrag.exceptions import CacheError
from fastrag.models import Document
from fastrag.pipeline.cache._codec import decode_metadata, document_checksum, encode_metadata
from fastrag.pipeline.cache.base import CacheStore, DocumentHeader

__all__ = ["SCHEMA_VERSION", "SqliteCacheStore"]

SCHEMA_VERSION = 1
"""Bumped whenever the tables or the JSON encoding change incompatibly."""

_FORMAT_NAME = "fastrag-step-cache"
_BATCH = 500  # keys per IN (...) query; far below SQLite's bound-parameter limit

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS fastrag_cache_meta ( name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS fastrag_cache_entries ("
    " key TEXT PRIMARY KEY, count INTEGER NOT NULL)",
    # content is the last column: a header read then never touches its overflow pages.
    "CREATE TABLE IF NOT EXISTS fastrag_cache_documents ("
    " key TEXT NOT NULL, position INTEGER NOT NULL, id TEXT NOT NULL,"
    " source_id TEXT NOT NULL, metadata TEXT NOT NULL, checksum TEXT NOT NULL,"
    " content TEXT NOT NULL, PRIMARY KEY (key, position))",
)

_ENTRIES_QUERY = "SELECT key, count FROM fastrag_cache_entries"

_R = TypeVar("_R")


class SqliteCacheStore(CacheStore):
    """A step cache in the SQLite file at ``path`` (created, with its schema, if absent).

    The file is opened lazily on first use, so constructing a store (and a step graph
    around it) touches nothing; a store pickles as its path and reopens in a worker.
    ``timeout`` is how long a writer waits for another process's write lock.
    """

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._connection: sqlite3.Connection | None = None
        self._lock = threading.RLock()

    def __reduce__(self) -> tuple[type[SqliteCacheStore], tuple[Path]]:
        return (SqliteCacheStore, (self.path,))

    def __repr__(self) -> str:
        return f"SqliteCacheStore({str(self.path)!r})"

    def get_headers(self, keys: Sequence[str]) -> dict[str, tuple[DocumentHeader, ...]]:
        query = "SELECT key, position, id, source_id, metadata FROM fastrag_cache_documents"

        def build(row: tuple[str, int, str, str, str]) -> DocumentHeader:
            return DocumentHeader(row[2], row[3], decode_metadata(row[4]))

        return self._read(keys, query, build)

    def get_documents(self, keys: Sequence[str]) -> dict[str, tuple[Document, ...]]:
        query = (
            "SELECT key, position, id, source_id, metadata, checksum, content"
            " FROM fastrag_cache_documents"
        )

        def build(row: tuple[str, int, str, str, str, str, str]) -> Document:
            _, _, doc_id, source_id, metadata, checksum, content = row
            if document_checksum(doc_id, source_id, metadata, content) != checksum:
                raise ValueError(f"checksum mismatch for cached document {doc_id!r}")
            return Document(doc_id, source_id, content, decode_metadata(metadata))

        return self._read(keys, query, build)

    def put(self, key: str, documents: Sequence[Document]) -> None:
        rows = []
        for position, doc in enumerate(documents):
            metadata = encode_metadata(doc.metadata, doc.id)
            checksum = document_checksum(doc.id, doc.source_id, metadata, doc.content)
            rows.append((key, position, doc.id, doc.source_id, metadata, checksum, doc.content))
        with self._guarded("write to") as connection:
            connection.execute("BEGIN IMMEDIATE")
            try:
                connection.execute("DELETE FROM fastrag_cache_documents WHERE key = ?", (key,))
                connection.executemany(
                    "INSERT INTO fastrag_cache_documents VALUES (?, ?, ?, ?, ?, ?, ?)", rows
                )
                connection.execute(
                    "INSERT OR REPLACE INTO fastrag_cache_entries VALUES (?, ?)", (key, len(rows))
                )
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _read(
        self, keys: Sequence[str], query: str, build: Callable[[Any], _R]
    ) -> dict[str, tuple[_R, ...]]:
        found: dict[str, list[_R]] = {}
        counts: dict[str, int] = {}
        unique = list(dict.fromkeys(keys))
        with self._guarded("read") as connection:
            # One read transaction: entry counts and rows come from the same snapshot.
            connection.execute("BEGIN")
            try:
                for start in range(0, len(unique), _BATCH):
                    batch = unique[start : start + _BATCH]
                    marks = ",".join("?" * len(batch))
                    # Only '?' placeholders are interpolated; values are bound parameters.
                    entries_query = f"{_ENTRIES_QUERY} WHERE key IN ({marks})"
                    counts.update(connection.execute(entries_query, batch).fetchall())
                    rows_query = f"{query} WHERE key IN ({marks}) ORDER BY key, position"
                    for row in connection.execute(rows_query, batch):
                        found.setdefault(row[0], []).append(self._build(build, row))
            finally:
                connection.execute("COMMIT")
        entries: dict[str, tuple[_R, ...]] = {}
        for key, count in counts.items():
            built = found.get(key, [])
            if len(built) != count:
                raise self._corrupt(
                    f"entry {key[:16]}... lists {count} documents but {len(built)} are stored"
                )
            entries[key] = tuple(built)
        return entries

    def _build(self, build: Callable[[Any], _R], row: Any) -> _R:
        try:
            return build(row)
        except (ValueError, TypeError) as error:
            raise self._corrupt(f"a cached row is damaged ({error})") from error

    @contextmanager
    def _guarded(self, action: str) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._connect()
            except sqlite3.OperationalError as error:
                if "locked" in str(error) or "busy" in str(error):
                    raise CacheError(
                        f"SQLite cache {str(self.path)!r} stayed locked by another writer for "
                        f"more than {self.timeout} s ({error}); let the other run finish or "
                        "give this run its own cache path"
                    ) from error
                raise self._corrupt(str(error), action) from error
            except sqlite3.DatabaseError as error:
                raise self._corrupt(str(error), action) from error

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            connection = sqlite3.connect(
                self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
            )
            try:
                self._initialize(connection)
            except BaseException:
                connection.close()
                raise
            self._connection = connection
        return self._connection

    def _initialize(self, connection: sqlite3.Connection) -> None:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        tables = {
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if tables and "fastrag_cache_meta" not in tables:
            raise self._corrupt(
                f"it is an SQLite database without fastrag's cache tables "
                f"(it holds {', '.join(sorted(tables))})"
            )
        if not tables:
            connection.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA:
                connection.execute(statement)
            connection.executemany(
                "INSERT OR IGNORE INTO fastrag_cache_meta VALUES (?, ?)",
                (("format", _FORMAT_NAME), ("schema_version", str(SCHEMA_VERSION))),
            )
            connection.execute("COMMIT")
        meta = dict(connection.execute("SELECT name, value FROM fastrag_cache_meta").fetchall())
        if meta.get("format") != _FORMAT_NAME or meta.get("schema_version") != str(SCHEMA_VERSION):
            raise CacheError(
                f"SQLite cache {str(self.path)!r} has schema {meta.get('format')!r} version "
                f"{meta.get('schema_version')!r}, but this fastrag reads {_FORMAT_NAME!r} "
                f"version {SCHEMA_VERSION}; delete the file (it is only a cache) or choose "
                "another cache path"
            )

    def _corrupt(self, detail: str, action: str = "read") -> CacheError:
        return CacheError(
            f"cannot {action} SQLite cache {str(self.path)!r}: {detail}; the file is "
            "corrupt, not a fastrag cache, or unreachable — delete it (it is only a cache) "
            "or choose another cache path"
        )
