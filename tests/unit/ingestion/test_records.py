"""The JSONL record: key order, types, offsets, identity, and the atomic ordered writer."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from fastrag.exceptions import ValidationError
from fastrag.ingestion.jsonl import JsonlWriter
from fastrag.ingestion.records import (
    RECORD_KEYS,
    SCHEMA_VERSION,
    build_records,
    ingestion_version,
    jsonable,
    record_chunk_id,
    record_line,
)
from fastrag.ingestion.steps.chunking import (
    HeadingChunker,
    RecursiveCharacterTextSplitter,
    build_embedding_text,
)
from fastrag.tokenization import TiktokenTokenizer, Utf8ByteTokenizer
from tests.unit.ingestion._ingest_helpers import EXAMPLES, chunk, ingest, parse_file, read_records

TIKTOKEN = TiktokenTokenizer()
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, object]]:
    output = tmp_path_factory.mktemp("records") / "out.jsonl"
    ingest(EXAMPLES, output, tokenizer=TIKTOKEN)
    return read_records(output)


def test_every_record_has_the_contract_keys_in_order_with_json_types(
    records: list[dict[str, object]],
) -> None:
    assert len(records) > 20
    for record in records:
        assert tuple(record) == RECORD_KEYS
        assert isinstance(record["chunk_id"], str) and len(record["chunk_id"]) == 32
        assert record["page"] is None
        assert type(record["char_start"]) is int and type(record["char_end"]) is int
        assert type(record["token_estimate"]) is int
        metadata = record["metadata"]
        assert isinstance(metadata, dict)
        assert metadata["schema_version"] == SCHEMA_VERSION
        assert metadata["tenant"] == "acme" and metadata["acl"] == ["staff"]
        assert metadata["offset_mode"] == "map"
        assert record["section"] == " > ".join(metadata["heading_path"])
        assert isinstance(metadata["retained_intervals"], list)
        assert "path" not in metadata


def test_offsets_and_counts_are_exact(records: list[dict[str, object]]) -> None:
    sources = {
        path.relative_to(EXAMPLES).as_posix(): path.read_text(encoding="utf-8-sig")
        for path in EXAMPLES.iterdir()
    }
    for record in records:
        content = sources[str(record["source"])]
        metadata = record["metadata"]
        assert isinstance(metadata, dict)
        embedded = build_embedding_text(str(record["text"]), metadata)
        assert TIKTOKEN.count(embedded) == record["token_estimate"]
        if metadata["content_format"] != "html":
            start, end = record["char_start"], record["char_end"]
            assert isinstance(start, int) and isinstance(end, int)
            # Markdown/RST/text structural chunks show their source verbatim, bar overlap.
            for d0, d1, s0, s1, kind in metadata["serialization_map"]:
                if kind == "source":
                    assert str(record["text"])[d0:d1] == content[s0:s1]
                    assert start <= s0 <= s1 <= end


def test_sections_follow_the_document_headings(records: list[dict[str, object]]) -> None:
    sections = {str(r["section"]) for r in records if r["source"] == "node-async_context.md"}
    assert "Asynchronous context tracking > Class: AsyncLocalStorage" in sections
    assert "Title" in {str(r["section"]) for r in records if r["source"] == "mixed.md"}


def test_the_same_content_at_two_paths_gets_two_ids() -> None:
    assert record_chunk_id("d", "a.md", "c") != record_chunk_id("d", "b.md", "c")
    assert record_chunk_id("d", "a.md", "c") == record_chunk_id("d", "a.md", "c")


def test_ingestion_version_changes_with_each_input_but_not_parser_order() -> None:
    base = ingestion_version(["md:1", "rst:1"], "cfg", "cl100k_base")
    assert base == ingestion_version(["rst:1", "md:1", "md:1"], "cfg", "cl100k_base")
    assert base != ingestion_version(["md:2", "rst:1"], "cfg", "cl100k_base")
    assert base != ingestion_version(["md:1", "rst:1"], "cfg2", "cl100k_base")
    assert base != ingestion_version(["md:1", "rst:1"], "cfg", "utf8-bytes:v1")
    with pytest.raises(ValidationError, match="chunker_config_hash"):
        ingestion_version(["md:1"], "", "cl100k_base")


def test_recursive_chunks_are_verbatim_slices_and_recounted_under_another_tokenizer() -> None:
    parent = parse_file(EXAMPLES, EXAMPLES / "kjv-ruth.txt")
    chunks = chunk(RecursiveCharacterTextSplitter(chunk_size=400, chunk_overlap=50), parent)
    tokenizer = Utf8ByteTokenizer()
    built = build_records(parent, chunks, tokenizer=tokenizer, ingestion_version="v")
    assert len(built) == len(chunks) > 3
    for record in built:
        start, end = record["char_start"], record["char_end"]
        assert parent.content[start:end] == record["text"]
        assert record["metadata"]["offset_mode"] == "verbatim"
        assert record["token_estimate"] == len(record["text"].encode("utf-8"))


def test_heading_chunks_locate_their_section_after_the_prepended_ancestors() -> None:
    parent = parse_file(EXAMPLES, EXAMPLES / "wiki.md")
    chunks = chunk(HeadingChunker(), parent)
    built = build_records(parent, chunks, tokenizer=TIKTOKEN, ingestion_version="v")
    modes = {record["metadata"]["offset_mode"] for record in built}
    assert "suffix" in modes
    for record in built:
        start, end = record["char_start"], record["char_end"]
        shown = parent.content[start:end]
        assert shown and record["text"].endswith(shown)
        assert record["section"] == " > ".join(record["metadata"]["headings"])


def test_jsonable_converts_and_rejects() -> None:
    from types import MappingProxyType

    value = MappingProxyType({"b": (1, (2, 3)), "a": {"y": None, "x": 1.5}})
    assert json.dumps(jsonable(value)) == '{"a": {"x": 1.5, "y": null}, "b": [1, [2, 3]]}'
    with pytest.raises(ValidationError, match=r"metadata\['s'\] is a set"):
        jsonable({"s": {1}})
    with pytest.raises(ValidationError, match="nan"):
        jsonable({"f": float("nan")})


def test_record_line_refuses_another_key_order(records: list[dict[str, object]]) -> None:
    record = dict(records[0])
    assert record_line(record).endswith("}\n")
    reordered = {"document_id": record["document_id"], **record}
    with pytest.raises(ValidationError, match="in that order"):
        record_line(reordered)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_output_is_byte_identical_in_any_completion_order(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    forward = ingest(EXAMPLES, first, tokenizer=TIKTOKEN)
    documents = len({r["source"] for r in forward})
    assert documents == len(list(EXAMPLES.iterdir()))
    ingest(EXAMPLES, second, tokenizer=TIKTOKEN, order=list(reversed(range(documents))))
    assert _sha(first) == _sha(second)
    sources = [r["source"] for r in read_records(first)]
    assert sources == sorted(sources)


def test_writer_sorts_records_of_a_document_by_chunk_index(
    tmp_path: Path, records: list[dict[str, object]]
) -> None:
    ruth = [r for r in records if r["source"] == "kjv-ruth.txt"]
    output = tmp_path / "out.jsonl"
    with JsonlWriter(output) as writer:
        writer.add("kjv-ruth.txt", list(reversed(ruth)))
    assert read_records(output) == ruth and len(ruth) > 1


def test_an_exception_mid_write_leaves_the_previous_file_and_no_temporaries(
    tmp_path: Path, records: list[dict[str, object]]
) -> None:
    output = tmp_path / "out.jsonl"
    output.write_text("previous\n", encoding="utf-8")

    def interrupted() -> None:
        with JsonlWriter(output) as writer:
            writer.add("a.md", records[:3])
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        interrupted()
    assert output.read_text(encoding="utf-8") == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_a_bad_record_mid_write_leaves_the_previous_file(
    tmp_path: Path, records: list[dict[str, object]]
) -> None:
    output = tmp_path / "out.jsonl"
    output.write_text("previous\n", encoding="utf-8")

    def write_bad_record() -> None:
        with JsonlWriter(output) as writer:
            writer.add("a.md", records[:2])
            writer.add("b.md", [{"chunk_id": "x"}])

    with pytest.raises(ValidationError, match="exactly the keys"):
        write_bad_record()
    assert output.read_text(encoding="utf-8") == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_the_same_document_twice_is_refused(
    tmp_path: Path, records: list[dict[str, object]]
) -> None:
    writer = JsonlWriter(tmp_path / "out.jsonl")
    writer.add("a.md", records[:1])
    with pytest.raises(ValidationError, match="already added"):
        writer.add("a.md", records[1:2])
    writer.abort()
    with pytest.raises(ValidationError, match="already committed or aborted"):
        writer.commit()


_KILLED_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from fastrag.ingestion.jsonl import JsonlWriter
    from tests.unit.ingestion._ingest_helpers import read_records

    records = read_records(Path(sys.argv[2]))
    writer = JsonlWriter(Path(sys.argv[1]))
    for number in range(10**9):
        writer.add(f"doc-{number:09d}.md", records)
        if number == 50:
            Path(sys.argv[3]).write_text("ready")
    """
)


def test_a_writer_killed_with_sigkill_leaves_the_previous_file_intact(
    tmp_path: Path, records: list[dict[str, object]]
) -> None:
    sample = tmp_path / "sample.jsonl"
    sample.write_text("".join(record_line(r) for r in records[:5]), encoding="utf-8")
    output = tmp_path / "out.jsonl"
    output.write_text("previous complete output\n", encoding="utf-8")
    ready = tmp_path / "ready"
    process = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(output), str(sample), str(ready)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        deadline = time.monotonic() + 60
        while not ready.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ready.exists(), "the writer subprocess never got going"
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL
    assert output.read_text(encoding="utf-8") == "previous complete output\n"
