"""``inspect_file`` gives exactly what ``fastrag ingest`` writes, and refuses what it would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fastrag.cli.main import main
from fastrag.exceptions import ConfigurationError
from fastrag.inspection import inspect_file
from tests._paths import REPO

EXAMPLES = REPO / "examples" / "documents"


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("node-async_context.md", ("--max-tokens", "150", "--overlap-tokens", "20")),
        ("python-tutorial-classes.html", ("--max-tokens", "300")),
        (
            "kjv-ruth.txt",
            ("--chunker", "recursive", "--max-tokens", "120", "--overlap-tokens", "20"),
        ),
    ],
)
def test_records_equal_the_ingest_output_for_the_same_file(
    name: str, options: tuple[str, ...], tmp_path: Path
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / name).write_bytes((EXAMPLES / name).read_bytes())
    output = tmp_path / "out.jsonl"
    assert main(["ingest", str(folder), "-o", str(output), *options]) == 0
    written = [json.loads(line) for line in output.read_text("utf-8").splitlines()]
    values = dict(zip(options[::2], options[1::2], strict=True))
    inspection = inspect_file(
        EXAMPLES / name,
        chunker=values.get("--chunker", "structure"),
        max_tokens=int(values["--max-tokens"]),
        overlap_tokens=int(values.get("--overlap-tokens", 0)),
    )
    assert [json.loads(json.dumps(record)) for record in inspection.records] == written


def test_a_sidecar_is_honoured_as_ingest_honours_it(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_text("# Note\n\nSome text.\n", encoding="utf-8")
    (tmp_path / "note.md.meta.json").write_text('{"tenant": "acme"}', encoding="utf-8")
    (record,) = inspect_file(path).records
    assert record["metadata"]["tenant"] == "acme"


def test_a_forced_format_is_used(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("Title\n=====\n\nBody text.\n", encoding="utf-8")
    assert inspect_file(path).source_type == "text"
    forced = inspect_file(path, source_format="rst")
    assert forced.source_type == "rst"
    assert forced.records[0]["section"] == "Title"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda folder: folder, "is not a regular file"),
        (lambda folder: folder / "missing.md", "cannot read"),
        (
            lambda folder: _write(folder / "blob.md", b"\x00\x01\x02binary" * 100),
            "would not chunk this file: skipped",
        ),
        (lambda folder: _write(folder / "big.md", b"x" * 2000), "over the 1000-byte cap"),
    ],
)
def test_files_ingest_would_not_chunk_are_refused_with_the_reason(
    tmp_path: Path, make: object, message: str
) -> None:
    path = make(tmp_path)
    with pytest.raises(ConfigurationError, match=message):
        inspect_file(path, max_file_bytes=1000)


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
