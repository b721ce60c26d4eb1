"""Bad input, one case per test: each ends in the right manifest state with a reason naming
the file, never stops the batch, and leaves the other files' records byte for byte unchanged.

Tests run as root, where ``chmod 000`` does not stop a read, so "unreadable" is simulated:
after discovery has hashed the file, ``os.open`` raises ``PermissionError`` for that one
path (exactly what the parser would meet). "Deleted" and "replaced by a FIFO" also happen
after discovery, through a wrapper around the job's ``discover``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import fastrag.ingestion.job as job
from tests.e2e._trees import EXAMPLES, ingest, manifest_rows, records

GOOD = ("mixed.md", "wiki.md", "kjv-ruth.txt")
CAP = 20_000
OPTIONS = (
    "--max-file-bytes", str(CAP),
    "--metadata", "tenant=acme",
    "--require-metadata", "tenant,acl",
)  # fmt: skip


def _good_tree(root: Path) -> Path:
    root.mkdir(parents=True)
    for name in GOOD:
        shutil.copyfile(EXAMPLES / name, root / name)
        (root / f"{name}.meta.json").write_text(json.dumps({"acl": ["staff"]}), encoding="utf-8")
    return root


def _lines_by_source(output: Path) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for line in output.read_text(encoding="utf-8").splitlines():
        grouped.setdefault(json.loads(line)["source"], []).append(line)
    return grouped


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    base = tmp_path_factory.mktemp("baseline")
    output = base / "out.jsonl"
    assert ingest(_good_tree(base / "docs"), output, *OPTIONS) == 0
    grouped = _lines_by_source(output)
    assert sorted(grouped) == sorted(GOOD)
    return grouped


def _after_discovery(monkeypatch: pytest.MonkeyPatch, action: Callable[[], None]) -> None:
    real = job.discover

    def discover_then(*args: Any, **kwargs: Any) -> Any:
        found = real(*args, **kwargs)
        action()
        return found

    monkeypatch.setattr(job, "discover", discover_then)


def _garbage() -> bytes:
    return b"".join(hashlib.sha256(bytes([i, 7])).digest() for i in range(256))


@dataclass(frozen=True)
class Case:
    name: str
    path: str
    state: str
    reason: str
    setup: Callable[[Path, pytest.MonkeyPatch], None]
    source_type: str | None = None


def _write(name: str, data: bytes) -> Callable[[Path, pytest.MonkeyPatch], None]:
    def setup(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        (root / name).write_bytes(data)
        (root / f"{name}.meta.json").write_text('{"acl": ["staff"]}', encoding="utf-8")

    return setup


def _symlink_out(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = root.parent / "outside.md"
    outside.write_text("# Secret\n\nOutside the input folder.\n", encoding="utf-8")
    (root / "escape.md").symlink_to(outside)


def _unreadable(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write("locked.md", b"# Locked\n\nNobody may read this.\n")(root, monkeypatch)
    target = str(root / "locked.md")
    real_open = os.open

    def refuse(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path) == target:
            raise PermissionError(13, "Permission denied", target)
        return real_open(path, flags, *args, **kwargs)

    _after_discovery(monkeypatch, lambda: monkeypatch.setattr(os, "open", refuse))


def _deleted(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write("gone.md", b"# Gone\n\nSoon deleted.\n")(root, monkeypatch)
    _after_discovery(monkeypatch, (root / "gone.md").unlink)


def _fifo(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write("pipe.md", b"# Pipe\n\nSoon a FIFO.\n")(root, monkeypatch)

    def swap() -> None:
        (root / "pipe.md").unlink()
        os.mkfifo(root / "pipe.md")

    _after_discovery(monkeypatch, swap)


def _no_acl(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "secret.md").write_text("# Secret\n\nNo ACL for this one.\n", encoding="utf-8")


def _bad_sidecar(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "tagged.md").write_text("# Tagged\n\nIts sidecar is broken.\n", encoding="utf-8")
    (root / "tagged.md.meta.json").write_text('{"acl": [', encoding="utf-8")


CASES = (
    Case("empty file", "empty.md", "empty", "empty.md: the parsed text is empty",
         _write("empty.md", b"")),
    Case("binary garbage named .md", "garbage.md", "skipped", "binary",
         _write("garbage.md", _garbage())),
    Case("binary after the sniffed head", "late.md", "failed", "looks binary",
         _write("late.md", b"# Late\n\n" + b"text " * 2000 + b"\x00\x01\x02")),
    Case("legacy 8-bit text (no UTF-8 at all)", "latin.md", "chunked", "decoded as cp1252",
         _write("latin.md", b"# Caf\xe9\n\nCaf\xe9 au lait, cr\xe8me br\xfbl\xe9e.\n")),
    Case("damaged UTF-8", "damaged.md", "chunked", "undecodable",
         _write("damaged.md", b"# Caf\xc3\xa9\n\nCaf\xc3\xa9 au lait \xff.\n")),
    Case("a .pdf that is really HTML", "page.pdf", "chunked", "",
         _write("page.pdf", b"<!DOCTYPE html><html><body><h1>Not a PDF</h1>"
                b"<p>An HTML page saved as .pdf.</p></body></html>"), "html"),
    Case("over the size cap", "big.md", "skipped", "cap",
         _write("big.md", (EXAMPLES / "node-async_context.md").read_bytes())),
    Case("symlink leaving the root", "escape.md", "skipped", "escape.md", _symlink_out),
    Case("unreadable (permission denied)", "locked.md", "failed", "permission denied",
         _unreadable),
    Case("deleted between discovery and parsing", "gone.md", "failed",
         "deleted between discovery and parsing", _deleted),
    Case("replaced by a FIFO after discovery", "pipe.md", "failed", "no longer a regular file",
         _fifo),
    Case("missing required ACL metadata", "secret.md", "quarantined",
         "missing required metadata acl", _no_acl),
    Case("invalid metadata sidecar", "tagged.md", "quarantined", "not valid JSON", _bad_sidecar),
)  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_input_ends_in_its_state_and_spares_the_rest(
    case: Case,
    baseline: dict[str, list[str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = _good_tree(tmp_path / "docs")
    case.setup(root, monkeypatch)
    output, quarantine = tmp_path / "out.jsonl", tmp_path / "quarantine"
    status = ingest(root, output, *OPTIONS, "--quarantine", str(quarantine))
    monkeypatch.undo()

    rows = manifest_rows(output)
    row = rows[case.path]
    assert row["state"] == case.state, row
    assert case.reason in row["reason"]
    if row["state"] != "chunked":
        assert case.path in row["reason"]
    if case.source_type is not None:
        assert row["source_type"] == case.source_type
    assert {path: r["state"] for path, r in rows.items() if path != case.path} == dict.fromkeys(
        GOOD, "chunked"
    )
    grouped = _lines_by_source(output)
    assert {source: grouped[source] for source in GOOD} == baseline
    produced = case.path in grouped
    assert produced == (case.state == "chunked")
    assert status == (3 if case.state in ("failed", "quarantined") else 0)
    assert (quarantine / case.path).exists() == (case.state == "quarantined")
    if case.state == "quarantined":
        reason = (quarantine / f"{case.path}.reason.txt").read_text(encoding="utf-8")
        assert case.path in reason
    assert case.path in capsys.readouterr().err  # the progress line names the file


def test_fail_on_never_and_failed_choose_the_exit_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _good_tree(tmp_path / "docs")
    _no_acl(root, pytest.MonkeyPatch())
    output = tmp_path / "out.jsonl"
    assert ingest(root, output, *OPTIONS, "--fail-on", "never") == 0
    assert ingest(root, output, *OPTIONS, "--fail-on", "failed") == 0
    assert ingest(root, output, *OPTIONS, "--fail-on", "quarantined") == 3
    assert ingest(root, output, *OPTIONS) == 3
    capsys.readouterr()


def test_a_removed_file_leaves_the_manifest_on_the_next_run(tmp_path: Path) -> None:
    root = _good_tree(tmp_path / "docs")
    output = tmp_path / "out.jsonl"
    assert ingest(root, output, *OPTIONS) == 0
    (root / "wiki.md").unlink()
    (root / "wiki.md.meta.json").unlink()
    assert ingest(root, output, *OPTIONS) == 0
    assert sorted(manifest_rows(output)) == ["kjv-ruth.txt", "mixed.md"]
    assert {record["source"] for record in records(output)} == {"kjv-ruth.txt", "mixed.md"}


def test_a_refused_rst_include_is_named_in_the_manifest_not_silently_dropped(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.rst").write_text(
        "Guide\n=====\n\nIntro text.\n\n.. include:: /etc/passwd\n\n.. raw:: html\n\n"
        "   <script>alert(1)</script>\n\nAfter.\n",
        encoding="utf-8",
    )
    (docs / "plain.md").write_text("# Plain\n\nNothing refused here.\n", encoding="utf-8")
    output = tmp_path / "out.jsonl"
    assert ingest(docs, output, "--workers", "2") == 0
    rows = manifest_rows(output)
    guide = rows["guide.rst"]
    assert guide["state"] == "chunked"
    assert guide["reason"].startswith("guide.rst: normalization: ")
    assert "'include' directive refused" in guide["reason"]
    assert "'raw' directive refused" in guide["reason"]
    assert "passwd" not in guide["reason"] and "alert" not in guide["reason"]
    assert rows["plain.md"]["reason"] == ""
    assert "passwd" not in output.read_text(encoding="utf-8")
