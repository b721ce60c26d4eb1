"""``Manifest``: one SQLite row per discovered file, so nothing a run saw can disappear.

Every discovered file ends in exactly one state (``STATES``): ``chunked``, ``empty``,
``skipped`` (deliberately: unsupported, over a cap, excluded), ``failed`` (with the
error) or ``quarantined`` (with the reason). The path is the primary key, so a file
cannot hold two states; ``verify_complete`` proves the other half of the invariant —
every discovered file has a row. The file sits next to the output by default
(``<output>.manifest.sqlite``), uses WAL so a reader can watch a running ingestion, and
carries its schema version; a file that is not a manifest, of another version or damaged
raises ``CacheError`` naming the path and the fix.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Final

from fastrag.exceptions import CacheError, ValidationError

__all__ = [
    "CHUNKED",
    "EMPTY",
    "FAILED",
    "MANIFEST_SCHEMA_VERSION",
    "QUARANTINED",
    "SKIPPED",
    "STATES",
    "Manifest",
    "ManifestEntry",
    "default_manifest_path",
]

CHUNKED: Final = "chunked"
EMPTY: Final = "empty"
SKIPPED: Final = "skipped"
FAILED: Final = "failed"
QUARANTINED: Final = "quarantined"
STATES: Final = (CHUNKED, EMPTY, SKIPPED, FAILED, QUARANTINED)

MANIFEST_SCHEMA_VERSION: Final = 5
"""Bumped whenever the table changes incompatibly; an older file must be deleted.
(3: the ``fastrag_manifest_index`` table of what each file has in the vector store;
5: its rows also remember a generation the store rejected, with the reason.)"""

_FORMAT_NAME: Final = "fastrag-ingestion-manifest"
_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS fastrag_manifest_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS fastrag_manifest_files ("
    " path TEXT PRIMARY KEY, sha256 TEXT, size INTEGER, source_type TEXT,"
    " state TEXT NOT NULL, reason TEXT NOT NULL, chunk_count INTEGER NOT NULL,"
    " parser_version TEXT, ingestion_version TEXT, document_id TEXT,"
    " pages INTEGER, pages_with_text INTEGER, error TEXT)",
    "CREATE TABLE IF NOT EXISTS fastrag_manifest_index ("
    " path TEXT PRIMARY KEY, generation TEXT NOT NULL, rejected TEXT, error TEXT)",
)
_COLUMNS: Final = (
    "path, sha256, size, source_type, state, reason, chunk_count, parser_version, "
    "ingestion_version, document_id, pages, pages_with_text, error"
)


@dataclass(frozen=True, slots=True)
class ManifestEntry:
    """The outcome for one discovered file.

    ``path`` is relative to the input root (POSIX); ``sha256``/``size`` describe the bytes
    seen (None when they could not be read); ``reason`` says why a file is not chunked
    (empty for ``chunked``); ``document_id`` is the parsed content's id when parsing got
    that far.
    """

    path: str
    sha256: str | None
    size: int | None
    source_type: str | None
    state: str
    reason: str = ""
    chunk_count: int = 0
    parser_version: str | None = None
    ingestion_version: str | None = None
    document_id: str | None = None
    pages: int | None = None
    """Pages (slides) of a paginated source that parsed; None for unpaginated formats."""
    pages_with_text: int | None = None
    """Of ``pages``, how many had extractable text (the rest need OCR)."""
    error: str | None = None
    """The exception type that ended a failed or quarantined file (e.g. ``NeedsOcrError``),
    so figures are counted by kind, never by parsing ``reason``."""

    def __post_init__(self) -> None:
        if not isinstance(self.path, str) or not self.path:
            raise ValidationError(f"a manifest entry needs a nonempty path (got {self.path!r})")
        if self.state not in STATES:
            raise ValidationError(
                f"manifest state of {self.path!r} must be one of {list(STATES)} "
                f"(got {self.state!r})"
            )
        if type(self.chunk_count) is not int or self.chunk_count < 0:
            raise ValidationError(
                f"chunk_count of {self.path!r} must be an int >= 0 (got {self.chunk_count!r})"
            )
        if (self.state == CHUNKED) != (self.chunk_count > 0):
            raise ValidationError(
                f"{self.path!r} is {self.state!r} with chunk_count {self.chunk_count}; a "
                "'chunked' file has at least one chunk and any other state has none"
            )
        if self.pages is not None and (
            type(self.pages) is not int
            or type(self.pages_with_text) is not int
            or not 0 <= self.pages_with_text <= self.pages
        ):
            raise ValidationError(
                f"{self.path!r}: pages ({self.pages!r}) and pages_with_text "
                f"({self.pages_with_text!r}) must be ints with 0 <= pages_with_text <= pages"
            )
        if self.state in (SKIPPED, FAILED, QUARANTINED) and not self.reason:
            raise ValidationError(
                f"{self.path!r} is {self.state!r} without a reason; say why (the user must "
                "be able to act on it)"
            )


def default_manifest_path(output: str | os.PathLike[str]) -> Path:
    """``<output>.manifest.sqlite``, next to the JSONL output."""
    output_path = Path(output)
    return output_path.with_name(output_path.name + ".manifest.sqlite")


class Manifest:
    """The manifest file at ``path`` (created with its schema when absent)."""

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self._connection = self._open(timeout)

    def __enter__(self) -> Manifest:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (further use raises ``sqlite3.ProgrammingError``)."""
        self._connection.close()

    def record(self, entry: ManifestEntry) -> None:
        """Upsert ``entry``: a file's latest outcome replaces its previous one."""
        self.record_many((entry,))

    def record_many(self, entries: Iterable[ManifestEntry]) -> None:
        """Upsert several entries in one transaction."""
        rows = [astuple(entry) for entry in entries]
        placeholders = ", ".join("?" for _ in fields(ManifestEntry))
        with self._guard(), self._connection:
            self._connection.executemany(
                f"INSERT OR REPLACE INTO fastrag_manifest_files ({_COLUMNS}) "  # noqa: S608
                f"VALUES ({placeholders})",
                rows,
            )

    def entries(self) -> Iterator[ManifestEntry]:
        """Every entry, sorted by path."""
        with self._guard(), closing(self._connection.cursor()) as cursor:
            cursor.execute(
                f"SELECT {_COLUMNS} FROM fastrag_manifest_files ORDER BY path"  # noqa: S608
            )
            rows = cursor.fetchall()
        for row in rows:
            yield self._entry(row)

    def get(self, path: str) -> ManifestEntry | None:
        """The entry of ``path``, or None when it was never recorded."""
        with self._guard():
            row = self._connection.execute(
                f"SELECT {_COLUMNS} FROM fastrag_manifest_files WHERE path = ?",  # noqa: S608
                (path,),
            ).fetchone()
        return None if row is None else self._entry(row)

    def states(self) -> dict[str, str]:
        """``{path: state}`` for every recorded file, sorted by path."""
        return {entry.path: entry.state for entry in self.entries()}

    def summary(self) -> dict[str, int]:
        """How many files are in each state (every state listed, zeros included)."""
        counts = dict.fromkeys(STATES, 0)
        for state in self.states().values():
            counts[state] += 1
        return counts

    def prune(self, keep: Iterable[str]) -> int:
        """Delete rows of files no longer discovered; returns how many were removed."""
        wanted = set(keep)
        stale = [(path,) for path in self.states() if path not in wanted]
        with self._guard(), self._connection:
            self._connection.executemany("DELETE FROM fastrag_manifest_files WHERE path = ?", stale)
        return len(stale)

    def indexed(self) -> dict[str, str]:
        """``{path: generation}`` of every file whose chunks are in the vector store.

        The generation is written only after a document's new chunks are stored and its
        old ones deleted (``fastrag.ingestion._job_index``), so a row that disagrees with
        the document's current generation means "re-index it".
        """
        with self._guard():
            rows = self._connection.execute(
                "SELECT path, generation FROM fastrag_manifest_index "
                "WHERE rejected IS NULL ORDER BY path"
            ).fetchall()
        return {str(path): str(generation) for path, generation in rows}

    def rejections(self) -> dict[str, tuple[str, str, str | None]]:
        """``{path: (generation, reason, error type)}`` of files whose records the vector
        store refused at that generation (an unchanged file need not be embedded again
        to be refused again)."""
        with self._guard():
            rows = self._connection.execute(
                "SELECT path, generation, rejected, error FROM fastrag_manifest_index "
                "WHERE rejected IS NOT NULL ORDER BY path"
            ).fetchall()
        return {
            str(path): (str(generation), str(reason), None if error is None else str(error))
            for path, generation, reason, error in rows
        }

    def set_rejected(self, path: str, generation: str, reason: str, error: str | None) -> None:
        """Record that the store refused ``path`` at ``generation`` (``set_indexed``
        replaces it)."""
        with self._guard(), self._connection:
            self._connection.execute(
                "INSERT OR REPLACE INTO fastrag_manifest_index VALUES (?, ?, ?, ?)",
                (path, generation, reason, error),
            )

    def set_indexed(self, path: str, generation: str | None) -> None:
        """Record ``path``'s generation in the vector store (None: it has none there)."""
        with self._guard(), self._connection:
            if generation is None:
                self._connection.execute(
                    "DELETE FROM fastrag_manifest_index WHERE path = ?", (path,)
                )
            else:
                self._connection.execute(
                    "INSERT OR REPLACE INTO fastrag_manifest_index VALUES (?, ?, NULL, NULL)",
                    (path, generation),
                )

    def verify_complete(self, discovered: Iterable[str]) -> None:
        """Raise ``ValidationError`` unless every discovered path has exactly one row.

        Rows for paths outside ``discovered`` are errors too: they are stale (call
        ``prune``) or were never discovered.
        """
        wanted = set(discovered)
        recorded = set(self.states())
        missing = sorted(wanted - recorded)
        extra = sorted(recorded - wanted)
        if missing or extra:
            raise ValidationError(
                f"manifest {str(self.path)!r} does not match the discovered files: "
                f"{len(missing)} without a state {missing[:5]}, {len(extra)} not discovered "
                f"{extra[:5]}; every discovered file must end in exactly one state"
            )

    def _entry(self, row: tuple[object, ...]) -> ManifestEntry:
        try:
            return ManifestEntry(*row)  # type: ignore[arg-type]
        except ValidationError as error:
            raise self._corrupt(f"a row is invalid ({error})") from error

    def _open(self, timeout: float) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=timeout)
        except (OSError, sqlite3.Error) as error:
            raise CacheError(
                f"cannot open the ingestion manifest {str(self.path)!r} ({error}); check the "
                "directory exists and is writable, or pass another manifest path"
            ) from error
        try:
            tables = {
                row[0]
                for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            if tables and "fastrag_manifest_meta" not in tables:
                connection.close()
                raise self._corrupt(
                    f"it is an SQLite database of something else (tables {sorted(tables)[:5]})"
                )
            connection.execute("PRAGMA journal_mode=WAL")
            with connection:
                for statement in _SCHEMA:
                    connection.execute(statement)
                connection.execute(
                    "INSERT OR IGNORE INTO fastrag_manifest_meta VALUES ('format', ?), "
                    "('schema_version', ?)",
                    (_FORMAT_NAME, str(MANIFEST_SCHEMA_VERSION)),
                )
            meta = dict(connection.execute("SELECT name, value FROM fastrag_manifest_meta"))
        except sqlite3.DatabaseError as error:
            connection.close()
            raise self._corrupt(f"it is not a readable SQLite database ({error})") from error
        if meta.get("format") != _FORMAT_NAME or meta.get("schema_version") != str(
            MANIFEST_SCHEMA_VERSION
        ):
            connection.close()
            raise self._corrupt(
                f"it is a {meta.get('format')!r} file of schema {meta.get('schema_version')!r}, "
                f"expected {_FORMAT_NAME!r} schema {MANIFEST_SCHEMA_VERSION}"
            )
        return connection

    def _corrupt(self, detail: str) -> CacheError:
        return CacheError(
            f"the ingestion manifest {str(self.path)!r} is unusable: {detail}; delete it (it "
            "is rebuilt by the next run) or pass another manifest path"
        )

    def _guard(self) -> _Guard:
        return _Guard(self)


class _Guard:
    """Turn a database error mid-use (a file damaged after opening) into ``CacheError``."""

    __slots__ = ("_manifest",)

    def __init__(self, manifest: Manifest) -> None:
        self._manifest = manifest

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: object
    ) -> None:
        if isinstance(error, sqlite3.DatabaseError):
            raise self._manifest._corrupt(str(error)) from error
