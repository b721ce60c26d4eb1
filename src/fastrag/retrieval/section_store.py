"""``SectionStore``: the sections of indexed documents in SQLite, for expansion across processes.

The in-memory ``SectionIndex`` needs the normalized parents, which exist only while a
document is being chunked (in a worker, for a parallel run). A search runs later, in
another process, with nothing but the store's hits; this file keeps what expansion needs
instead: per document, section id → (heading path, character range, enclosing section,
the chunks cut from it). ``fastrag ingest --store`` writes it beside the manifest for
every structural chunk it indexes; ``fastrag search --expand-sections`` reads it.

The rows are derived from the records' structural metadata (``section_ids``,
``heading_path``, offsets) — the only form a document reaches the parent process in —
not from the normalized tree: a section's range is the span of the chunks that cover it
(never narrower than the section; exact when chunks break at its boundaries), and its
enclosing section is the nearest one whose heading path is its own minus the last title.
A section that no chunk starts in (a short subsection in the middle of a chunk) has no
heading path on record and no known enclosing section. A document's rows are replaced
as a whole, keyed by its source path, so a re-ingested document never keeps sections of
its previous generation.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from fastrag.exceptions import CacheError

__all__ = ["SectionStore", "StoredSection", "default_section_store_path", "sections_of"]

_FORMAT_NAME: Final = "fastrag-section-store"
_SCHEMA_VERSION: Final = "1"
_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS fastrag_sections_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS fastrag_sections ("
    " source TEXT NOT NULL, document_id TEXT NOT NULL, section_id TEXT NOT NULL,"
    " heading_path TEXT NOT NULL, char_start INTEGER, char_end INTEGER, parent_id TEXT,"
    " chunk_ids TEXT NOT NULL, PRIMARY KEY (document_id, section_id, source))",
    "CREATE INDEX IF NOT EXISTS fastrag_sections_source ON fastrag_sections (source)",
)
_COLUMNS: Final = (
    "source, document_id, section_id, heading_path, char_start, char_end, parent_id, chunk_ids"
)


@dataclass(frozen=True, slots=True)
class StoredSection:
    """One section of an indexed document (see the module docstring for how it is derived)."""

    source: str
    document_id: str
    section_id: str
    heading_path: tuple[str, ...]
    char_start: int | None
    char_end: int | None
    parent_id: str | None
    """The enclosing section's id, or None for a top-level section."""
    chunk_ids: tuple[str, ...]
    """The chunks (record ``chunk_id``) that cover this section, in document order."""


def default_section_store_path(manifest: str | os.PathLike[str]) -> Path:
    """``<manifest>`` with ``.sections.sqlite`` for ``.manifest.sqlite``: beside it."""
    path = Path(manifest)
    name = path.name.removesuffix(".manifest.sqlite").removesuffix(".sqlite")
    return path.with_name(name + ".sections.sqlite")


def _int(value: object) -> int | None:
    return value if type(value) is int else None


def sections_of(source: str, records: Sequence[Mapping[str, Any]]) -> list[StoredSection]:
    """The sections the structural ``records`` of one document cover (none for others)."""
    # A section's range is the span of the chunks that touch it: never narrower than the
    # section (expansion may show a little more context, never less), exact when the
    # chunks break at its boundaries.
    ranges: dict[str, list[int | None]] = {}
    paths: dict[str, tuple[str, ...]] = {}
    chunks: dict[str, list[str]] = {}
    document_ids: dict[str, str] = {}
    for record in records:
        metadata = record.get("metadata")
        if not isinstance(metadata, Mapping):
            continue
        section_ids = metadata.get("section_ids")
        if not isinstance(section_ids, list | tuple) or "structure_version" not in metadata:
            continue
        start, end = _int(record.get("char_start")), _int(record.get("char_end"))
        heading = metadata.get("heading_path")
        for position, section_id in enumerate(section_ids):
            if not isinstance(section_id, str):
                continue
            span = ranges.setdefault(section_id, [start, end])
            if start is not None and (span[0] is None or start < span[0]):
                span[0] = start
            if end is not None and (span[1] is None or end > span[1]):
                span[1] = end
            chunks.setdefault(section_id, []).append(str(record.get("chunk_id")))
            document_ids[section_id] = str(record.get("document_id"))
            # A chunk's heading path is the one where it starts: its first section's.
            if position == 0 and section_id not in paths and isinstance(heading, list | tuple):
                paths[section_id] = tuple(str(title) for title in heading)
    parents = {
        section_id: _parent(section_id, paths.get(section_id, ()), span[0], ranges, paths)
        for section_id, span in ranges.items()
    }
    # A section's range covers its subsections: widen each ancestor to its descendants'.
    for section_id, (_, end) in ranges.items():
        seen = {section_id}
        parent = parents[section_id]
        while parent is not None and parent not in seen:
            seen.add(parent)
            span = ranges[parent]
            if end is not None and (span[1] is None or end > span[1]):
                span[1] = end
            parent = parents[parent]
    return [
        StoredSection(
            source,
            document_ids[section_id],
            section_id,
            paths.get(section_id, ()),
            start,
            end,
            parents[section_id],
            tuple(chunks[section_id]),
        )
        for section_id, (start, end) in ranges.items()
    ]


def _parent(
    section_id: str,
    path: tuple[str, ...],
    start: int | None,
    ranges: Mapping[str, list[int | None]],
    paths: Mapping[str, tuple[str, ...]],
) -> str | None:
    """The latest section starting at or before ``start`` whose heading path is
    ``path[:-1]`` (sections nest, so that is the one enclosing it)."""
    if len(path) < 2 or start is None:
        return None
    best: tuple[int, str] | None = None
    for other, (other_start, _) in ranges.items():
        if other == section_id or paths.get(other) != path[:-1]:
            continue
        if other_start is None or other_start > start:
            continue
        if best is None or other_start > best[0]:
            best = (other_start, other)
    return None if best is None else best[1]


class SectionStore:
    """The SQLite section file at ``path`` (created when absent)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(self.path, timeout=30.0)
            with self._connection:
                for statement in _SCHEMA:
                    self._connection.execute(statement)
                self._connection.execute(
                    "INSERT OR IGNORE INTO fastrag_sections_meta VALUES ('format', ?), "
                    "('schema_version', ?)",
                    (_FORMAT_NAME, _SCHEMA_VERSION),
                )
            meta = dict(self._connection.execute("SELECT name, value FROM fastrag_sections_meta"))
        except (OSError, sqlite3.Error) as error:
            raise CacheError(
                f"cannot use the section store {str(self.path)!r} ({error}); delete it (the "
                "next ingest with --store rebuilds it) or pass another path"
            ) from error
        if meta != {"format": _FORMAT_NAME, "schema_version": _SCHEMA_VERSION}:
            self._connection.close()
            raise CacheError(
                f"{str(self.path)!r} is not a fastrag section store of schema "
                f"{_SCHEMA_VERSION}; delete it (the next ingest with --store rebuilds it)"
            )

    def __enter__(self) -> SectionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file."""
        self._connection.close()

    def replace(self, source: str, sections: Iterable[StoredSection]) -> None:
        """Make ``sections`` the only ones stored for ``source`` (one transaction)."""
        rows = [
            (
                source,
                s.document_id,
                s.section_id,
                json.dumps(list(s.heading_path), ensure_ascii=False),
                s.char_start,
                s.char_end,
                s.parent_id,
                json.dumps(list(s.chunk_ids)),
            )
            for s in sections
        ]
        with self._connection:
            self._connection.execute("DELETE FROM fastrag_sections WHERE source = ?", (source,))
            self._connection.executemany(
                f"INSERT OR REPLACE INTO fastrag_sections ({_COLUMNS}) "  # noqa: S608
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    def remove(self, source: str) -> None:
        """Forget every section of ``source``."""
        self.replace(source, ())

    def get(self, document_id: str, section_id: str) -> StoredSection | None:
        """One stored section, or None."""
        row = self._connection.execute(
            f"SELECT {_COLUMNS} FROM fastrag_sections "  # noqa: S608
            "WHERE document_id = ? AND section_id = ? ORDER BY source LIMIT 1",
            (document_id, section_id),
        ).fetchone()
        return None if row is None else _section(row)

    def resolve(
        self, document_id: str, section_ids: Sequence[str], *, ancestors: bool = True
    ) -> tuple[StoredSection, ...]:
        """The stored sections ``section_ids`` name (and their enclosing ones), in source
        order, each once; ids this store does not hold are left out."""
        chosen: dict[str, StoredSection] = {}
        for section_id in section_ids:
            current = self.get(document_id, section_id)
            while current is not None and current.section_id not in chosen:
                chosen[current.section_id] = current
                if not ancestors or current.parent_id is None:
                    break
                current = self.get(document_id, current.parent_id)
        return tuple(
            sorted(
                chosen.values(),
                key=lambda s: (s.char_start or 0, -(s.char_end or 0), s.section_id),
            )
        )


def _section(row: tuple[Any, ...]) -> StoredSection:
    source, document_id, section_id, heading, start, end, parent, chunk_ids = row
    return StoredSection(
        str(source),
        str(document_id),
        str(section_id),
        tuple(str(title) for title in json.loads(heading)),
        _int(start),
        _int(end),
        None if parent is None else str(parent),
        tuple(str(chunk) for chunk in json.loads(chunk_ids)),
    )
