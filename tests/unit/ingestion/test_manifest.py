"""The manifest: one row, one state per discovered file; damaged files say how to recover."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from fastrag.exceptions import CacheError, ValidationError
from fastrag.ingestion.manifest import (
    CHUNKED,
    EMPTY,
    FAILED,
    QUARANTINED,
    SKIPPED,
    STATES,
    Manifest,
    ManifestEntry,
    default_manifest_path,
)

ENTRIES = (
    ManifestEntry("a.md", "aa", 10, "markdown", CHUNKED, chunk_count=3, parser_version="md:1",
                  ingestion_version="iv", document_id="d1"),
    ManifestEntry("b.txt", "bb", 0, "text", EMPTY),
    ManifestEntry("c.pdf", "cc", 5, "pdf", SKIPPED, reason="no parser for pdf"),
    ManifestEntry("d.md", None, None, "markdown", FAILED, reason="deleted before parsing"),
    ManifestEntry("e.md", "ee", 7, "markdown", QUARANTINED, reason="missing tenant"),
)  # fmt: skip


def test_default_path_sits_next_to_the_output(tmp_path: Path) -> None:
    assert default_manifest_path(tmp_path / "out.jsonl") == tmp_path / "out.jsonl.manifest.sqlite"


def test_entries_round_trip_and_persist(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    with Manifest(path) as manifest:
        manifest.record_many(ENTRIES)
    with Manifest(path) as manifest:
        assert tuple(manifest.entries()) == ENTRIES
        assert manifest.get("a.md") == ENTRIES[0]
        assert manifest.get("zzz") is None
        assert manifest.summary() == dict.fromkeys(STATES, 1)
        journal = manifest._connection.execute("PRAGMA journal_mode").fetchone()[0]
        assert journal == "wal"


def test_a_file_holds_exactly_one_state_and_its_latest_outcome_wins(tmp_path: Path) -> None:
    with Manifest(tmp_path / "m.sqlite") as manifest:
        manifest.record_many(ENTRIES)
        manifest.record(ManifestEntry("d.md", "dd", 4, "markdown", CHUNKED, chunk_count=1))
        states = manifest.states()
        assert states["d.md"] == CHUNKED
        assert list(states) == sorted(states) and len(states) == len(ENTRIES)
        manifest.verify_complete(entry.path for entry in ENTRIES)


def test_verify_complete_names_missing_and_stale_files(tmp_path: Path) -> None:
    with Manifest(tmp_path / "m.sqlite") as manifest:
        manifest.record_many(ENTRIES[:2])
        with pytest.raises(ValidationError, match=r"1 without a state \['new.md'\].*1 not"):
            manifest.verify_complete(["a.md", "new.md"])
        assert manifest.prune(["a.md"]) == 1
        manifest.verify_complete(["a.md"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"state": "done"}, "must be one of"),
        ({"state": CHUNKED, "chunk_count": 0}, "at least one chunk"),
        ({"state": EMPTY, "chunk_count": 2}, "at least one chunk"),
        ({"state": FAILED}, "without a reason"),
        ({"state": EMPTY, "chunk_count": -1}, "int >= 0"),
    ],
)
def test_inconsistent_entries_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        ManifestEntry("x.md", None, None, None, **kwargs)  # type: ignore[arg-type]


def test_a_file_that_is_not_sqlite_names_the_path_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(CacheError, match=r"m\.sqlite.*delete it"):
        Manifest(path)


def test_another_sqlite_database_is_not_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE data (x)")
    with pytest.raises(CacheError, match="something else"):
        Manifest(path)
    with sqlite3.connect(path) as connection:
        tables = connection.execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("data",)]


def test_another_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    Manifest(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE fastrag_manifest_meta SET value = '99' WHERE name = 'schema_version'"
        )
    with pytest.raises(CacheError, match="schema '99'"):
        Manifest(path)


def test_a_damaged_row_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    Manifest(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO fastrag_manifest_files VALUES ('x', NULL, NULL, NULL, 'weird', '', 0,"
            " NULL, NULL, NULL, NULL, NULL, NULL)"
        )
    with Manifest(path) as manifest, pytest.raises(CacheError, match="row is invalid"):
        manifest.states()
