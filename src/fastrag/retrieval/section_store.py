"""``SectionStore``: the exact sections of indexed documents in SQLite, across processes.

The in-memory ``SectionIndex`` needs the normalized parents, which exist only while a
document is being chunked (in a worker, for a parallel run). A search runs later, in
another process, with nothing but the vector store's hits. So ``fastrag ingest --store``
has each worker compute its documents' sections from the tree the chunker built (the
definition ``SectionIndex`` uses: ``fastrag.retrieval._sections``) and the parent writes
them here, beside the manifest; ``fastrag search --expand-sections`` reads them, and
``SectionStore.resolve`` returns exactly what ``SectionIndex.resolve`` returns for the
same hit — without the source file.

Per source file, one row: its document id, the generation it was indexed at, its
sections (heading ids and path, level, character range, enclosing section, the pieces
of the text that make up its content) and the text itself, in pages of
``_PAGE_CHARS`` so that expanding a hit reads only the pages its sections cover. A
document's text over ``MAX_TEXT_CHARS`` is not stored (its row says so, and resolving
one of its hits raises ``KeyError`` naming the cap); the cap bounds this file to about
the size of the indexed text. A document's rows are replaced as a whole, keyed by its
source path, so a re-ingested document never keeps sections of its previous generation.

Schema 2 (exact sections) replaced schema 1 (sections approximated from records).
Reading an older file is an error naming the fix; ``fastrag ingest --store`` rebuilds
it (``rebuild=True``: the file holds nothing that is not derived from the documents).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from fastrag.exceptions import CacheError
from fastrag.models import Document
from fastrag.retrieval._sections import (
    SECTION,
    DocumentSections,
    SectionRow,
    choose,
    row_from_list,
    row_to_list,
)
from fastrag.retrieval.section_index import ResolvedSection, hit_fields, resolved

__all__ = [
    "MAX_TEXT_CHARS",
    "SCHEMA_VERSION",
    "SectionStore",
    "StoredDocument",
    "default_section_store_path",
]

MAX_TEXT_CHARS: Final = 32 * 1024 * 1024
"""A document whose section text is longer (in characters) has no sections stored."""
SCHEMA_VERSION: Final = "2"
_FORMAT_NAME: Final = "fastrag-section-store"
_PAGE_CHARS: Final = 65_536
_SCHEMA: Final = (
    "CREATE TABLE IF NOT EXISTS fastrag_sections_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS fastrag_section_documents ("
    " source TEXT PRIMARY KEY, document_id TEXT NOT NULL, generation TEXT,"
    " text_chars INTEGER NOT NULL, stored INTEGER NOT NULL, rows TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS fastrag_section_documents_id"
    " ON fastrag_section_documents (document_id)",
    "CREATE TABLE IF NOT EXISTS fastrag_section_text ("
    " source TEXT NOT NULL, page INTEGER NOT NULL, text TEXT NOT NULL,"
    " PRIMARY KEY (source, page))",
)
_TABLES: Final = ("fastrag_section_documents", "fastrag_section_text", "fastrag_sections")
"""Every table a section store has had (schema 1's ``fastrag_sections`` included)."""


@dataclass(frozen=True, slots=True)
class StoredDocument:
    """What the store holds for one source file."""

    source: str
    document_id: str
    generation: str | None
    text_chars: int
    stored: bool
    """False when the text is over ``MAX_TEXT_CHARS``: no sections are kept."""
    sections: int


def default_section_store_path(manifest: str | os.PathLike[str]) -> Path:
    """``<manifest>`` with ``.sections.sqlite`` for ``.manifest.sqlite``: beside it."""
    path = Path(manifest)
    name = path.name.removesuffix(".manifest.sqlite").removesuffix(".sqlite")
    return path.with_name(name + ".sections.sqlite")


class SectionStore:
    """The SQLite section file at ``path`` (created when absent).

    ``rebuild=True`` (what ingest passes) empties a section file of another schema
    instead of refusing it; a file that is not a section store is always refused.
    """

    def __init__(self, path: str | os.PathLike[str], *, rebuild: bool = False) -> None:
        self.path = Path(path)
        self._lookups: dict[tuple[str, str], _Lookup] = {}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(self.path, timeout=30.0)
        except (OSError, sqlite3.Error) as error:
            raise self._unusable(f"cannot open it ({error})") from error
        try:
            self._prepare(rebuild)
        except sqlite3.DatabaseError as error:
            self._connection.close()
            raise self._unusable(f"it is not a readable SQLite database ({error})") from error
        except CacheError:
            self._connection.close()
            raise

    def _prepare(self, rebuild: bool) -> None:
        connection = self._connection
        tables = {
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        meta: dict[str, str] = {}
        if "fastrag_sections_meta" in tables:
            meta = dict(connection.execute("SELECT name, value FROM fastrag_sections_meta"))
        elif tables:
            raise self._unusable(
                f"it is an SQLite database of something else ({sorted(tables)[:5]})"
            )
        if meta and meta.get("format") != _FORMAT_NAME:
            raise self._unusable(f"it is not a fastrag section store ({meta.get('format')!r})")
        version = meta.get("schema_version", SCHEMA_VERSION)
        if version != SCHEMA_VERSION:
            if not rebuild:
                raise CacheError(
                    f"the section store {str(self.path)!r} has schema {version}, and this "
                    f"fastrag reads schema {SCHEMA_VERSION}; re-run fastrag ingest --store ... "
                    "(same output and store) to rebuild it"
                )
            with connection:
                for table in _TABLES:
                    connection.execute(f"DROP TABLE IF EXISTS {table}")
                connection.execute("DELETE FROM fastrag_sections_meta")
        connection.execute("PRAGMA journal_mode=WAL")
        with connection:
            for statement in _SCHEMA:
                connection.execute(statement)
            connection.execute(
                "INSERT OR IGNORE INTO fastrag_sections_meta VALUES ('format', ?), "
                "('schema_version', ?)",
                (_FORMAT_NAME, SCHEMA_VERSION),
            )

    def _unusable(self, detail: str) -> CacheError:
        return CacheError(
            f"cannot use the section store {str(self.path)!r}: {detail}; delete it (the next "
            "fastrag ingest --store rebuilds it) or pass another path"
        )

    def __enter__(self) -> SectionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file."""
        self._connection.close()

    # ------------------------------------------------------------------ writing

    def replace(
        self, source: str, sections: DocumentSections, generation: str | None = None
    ) -> None:
        """Make ``sections`` the only ones stored for ``source`` (one transaction).

        ``generation`` is the vector store generation they belong to (``generation()``
        tells a caller whether they are current).
        """
        text = sections.text
        stored = len(text) <= MAX_TEXT_CHARS
        rows = json.dumps(
            [row_to_list(row) for row in sections.rows] if stored else [],
            ensure_ascii=False,
            separators=(",", ":"),
        )
        pages = (
            [
                (source, number, text[start : start + _PAGE_CHARS])
                for number, start in enumerate(range(0, len(text), _PAGE_CHARS))
            ]
            if stored
            else []
        )
        with self._connection:
            self._delete(source)
            self._connection.execute(
                "INSERT INTO fastrag_section_documents VALUES (?, ?, ?, ?, ?, ?)",
                (source, sections.document_id, generation, len(text), int(stored), rows),
            )
            self._connection.executemany("INSERT INTO fastrag_section_text VALUES (?, ?, ?)", pages)
        self._lookups.clear()

    def remove(self, source: str) -> None:
        """Forget every section of ``source``."""
        with self._connection:
            self._delete(source)
        self._lookups.clear()

    def _delete(self, source: str) -> None:
        self._connection.execute(
            "DELETE FROM fastrag_section_documents WHERE source = ?", (source,)
        )
        self._connection.execute("DELETE FROM fastrag_section_text WHERE source = ?", (source,))

    # ------------------------------------------------------------------ reading

    def generation(self, source: str) -> str | None:
        """The generation ``source``'s sections were stored at (None: none stored)."""
        row = self._connection.execute(
            "SELECT generation FROM fastrag_section_documents WHERE source = ?", (source,)
        ).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def documents(self) -> list[StoredDocument]:
        """Every source held, sorted by path."""
        found = self._connection.execute(
            "SELECT source, document_id, generation, text_chars, stored, rows "
            "FROM fastrag_section_documents ORDER BY source"
        ).fetchall()
        return [
            StoredDocument(
                str(source),
                str(document_id),
                None if generation is None else str(generation),
                int(chars),
                bool(stored),
                len(json.loads(rows)),
            )
            for source, document_id, generation, chars, stored, rows in found
        ]

    def resolve(
        self,
        hit: Document,
        ancestors: bool = True,
        missing: Literal["raise", "skip"] = "raise",
    ) -> tuple[ResolvedSection, ...]:
        """What ``SectionIndex.resolve`` returns for ``hit``, from the stored sections.

        The hit's ``source_id`` picks the source when two files share its document id.
        A document not held (or held over the text cap) raises ``KeyError`` naming it;
        ``missing="skip"`` leaves it (and unknown sections) out.
        """
        document_id, section_ids = hit_fields(hit, missing)
        lookup = self._lookup(document_id, hit.source_id)
        if isinstance(lookup, str):
            if missing == "skip":
                return ()
            raise KeyError(f"document {document_id!r} of hit {hit.id!r} {lookup}")
        rows = choose(
            lookup.by_id,
            lookup.preamble,
            hit.id,
            document_id,
            hit.metadata,
            section_ids,
            ancestors,
            missing,
        )
        return tuple(resolved(document_id, row, lookup.content(row)) for row in rows)

    def _lookup(self, document_id: str, source: str) -> _Lookup | str:
        """The document's sections, or why there are none."""
        key = (document_id, source)
        lookup = self._lookups.get(key)
        if lookup is not None:
            return lookup
        row = self._connection.execute(
            "SELECT source, text_chars, stored, rows FROM fastrag_section_documents "
            "WHERE document_id = ? ORDER BY source = ? DESC, source LIMIT 1",
            (document_id, source),
        ).fetchone()
        if row is None:
            return (
                f"has no sections in {str(self.path)!r}; re-run fastrag ingest --store with "
                "this section file, or pass missing='skip'"
            )
        found, chars, stored, rows = row
        if not stored:
            return (
                f"({chars:,} characters) is over the section store's cap of "
                f"{MAX_TEXT_CHARS:,} characters, so its sections were not stored; read them "
                "from the source, or pass missing='skip'"
            )
        try:
            parsed = [row_from_list(item) for item in json.loads(rows)]
        except (ValueError, TypeError) as error:
            raise self._unusable(f"the sections of {found!r} are damaged ({error})") from error
        lookup = self._lookups[key] = _Lookup(self._connection, str(found), parsed)
        return lookup


class _Lookup:
    """One stored document: its sections by id and its text, read a page at a time."""

    def __init__(self, connection: sqlite3.Connection, source: str, rows: list[SectionRow]) -> None:
        self._connection = connection
        self._source = source
        self._pages: dict[int, str] = {}
        self.by_id: Mapping[str, SectionRow] = {r.section_id: r for r in rows if r.kind == SECTION}
        self.preamble = next((r for r in rows if r.kind != SECTION), None)

    def content(self, row: SectionRow) -> str:
        return "".join(self._slice(start, end) for start, end in row.pieces)

    def _slice(self, start: int, end: int) -> str:
        if end <= start:
            return ""
        first, last = start // _PAGE_CHARS, (end - 1) // _PAGE_CHARS
        wanted = [page for page in range(first, last + 1) if page not in self._pages]
        if wanted:
            self._pages.update(
                self._connection.execute(
                    "SELECT page, text FROM fastrag_section_text "
                    "WHERE source = ? AND page BETWEEN ? AND ?",
                    (self._source, wanted[0], wanted[-1]),
                ).fetchall()
            )
        pages = range(first, last + 1)
        if any(page not in self._pages for page in pages):
            raise CacheError(
                f"the section text of {self._source!r} is incomplete in the section store; "
                "delete the file (the next fastrag ingest --store rebuilds it)"
            )
        text = "".join(self._pages[page] for page in pages)
        offset = first * _PAGE_CHARS
        return text[start - offset : end - offset]
