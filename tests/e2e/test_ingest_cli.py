"""``fastrag ingest`` end to end on a tree of real documents: contract, offsets, sections,
determinism across runs and worker counts, the step cache, and ``fastrag validate``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from fastrag.cli.main import main
from fastrag.ingestion.job import IngestConfig, run_ingest
from fastrag.ingestion.records import RECORD_KEYS
from fastrag.ingestion.steps.parsing.pdf import PdfParser
from fastrag.pipeline import CacheHit, EventRecorder, ItemStarted
from tests.e2e._trees import (
    build_tree,
    headings,
    ingest,
    loose,
    manifest_rows,
    parsed_text,
    records,
    sha256,
)

HEX32 = re.compile(r"[0-9a-f]{32}")
MAX_TOKENS = 300
OPTIONS = ("--max-tokens", str(MAX_TOKENS), "--metadata", "tenant=acme")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tree(tmp_path_factory.mktemp("tree") / "docs")


@pytest.fixture(scope="module")
def output(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("out") / "chunks.jsonl"
    report = path.with_name("report.json")
    assert ingest(tree, path, *OPTIONS, "--report", str(report)) == 0
    return path


def _text_formats(written: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records of UTF-8 sources, whose parsed text the standard library reproduces (the
    PDF's text is checked against pypdfium2 in test_ingest_documents)."""
    return [record for record in written if record["source_type"] != "pdf"]


@pytest.fixture(scope="module")
def written(output: Path) -> list[dict[str, Any]]:
    return records(output)


def test_every_record_has_every_contract_field_with_its_type(
    written: list[dict[str, Any]], tree: Path
) -> None:
    sources = {p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()}
    assert {record["source"] for record in written} == sources
    for record in written:
        assert tuple(record) == RECORD_KEYS
        assert HEX32.fullmatch(record["chunk_id"]) and HEX32.fullmatch(record["document_id"])
        assert record["source_type"] in {"markdown", "rst", "html", "text", "pdf"}
        if record["source_type"] == "pdf":
            assert type(record["page"]) is int and record["page"] >= 1
        else:
            assert record["page"] is None
        assert isinstance(record["section"], str)
        assert isinstance(record["text"], str) and record["text"].strip()
        assert type(record["char_start"]) is int and type(record["char_end"]) is int
        assert 0 <= record["char_start"] < record["char_end"]
        assert type(record["token_estimate"]) is int
        assert 0 < record["token_estimate"] <= MAX_TOKENS
        metadata = record["metadata"]
        assert metadata["tenant"] == "acme"
        assert HEX32.fullmatch(metadata["ingestion_version"])
        pdf = record["source_type"] == "pdf"
        expected = f"PdfParser:{PdfParser.version}" if pdf else ":1"
        assert metadata["parser_version"].endswith(expected)
        assert metadata["content_format"] == (
            "markdown" if record["source_type"] == "pdf" else record["source_type"]
        )
        assert metadata["heading_path"] == (
            record["section"].split(" > ") if record["section"] else []
        )
        assert "path" not in metadata  # the absolute path differs per machine
    assert len({record["chunk_id"] for record in written}) == len(written)


def test_document_id_is_the_hash_of_the_parsed_content(
    written: list[dict[str, Any]], tree: Path
) -> None:
    import hashlib

    for record in _text_formats(written):
        content = parsed_text(tree / record["source"])
        expected = hashlib.sha256(content.encode("utf-8")).hexdigest()[:32]
        assert record["document_id"] == expected, record["source"]


def test_identical_files_at_two_paths_share_the_document_but_not_chunk_ids(
    written: list[dict[str, Any]],
) -> None:
    def of(source: str) -> list[dict[str, Any]]:
        return [record for record in written if record["source"] == source]

    left, right = of("examples/wiki.md"), of("web/wiki.md")
    assert left and len(left) == len(right)
    assert {r["document_id"] for r in left} == {r["document_id"] for r in right}
    assert not {r["chunk_id"] for r in left} & {r["chunk_id"] for r in right}
    assert [r["text"] for r in left] == [r["text"] for r in right]


def test_offsets_point_at_the_chunk_source_text(written: list[dict[str, Any]], tree: Path) -> None:
    for record in _text_formats(written):
        content = parsed_text(tree / record["source"])
        start, end = record["char_start"], record["char_end"]
        assert end <= len(content)
        runs = record["metadata"]["serialization_map"]
        assert record["metadata"]["offset_mode"] == "map"
        shown = [run for run in runs if run[4] in ("source", "rendered")]
        assert shown, record["chunk_id"]
        for display_start, display_end, source_start, source_end, kind in shown:
            assert start <= source_start <= source_end <= end
            if kind == "source":
                assert record["text"][display_start:display_end] == content[source_start:source_end]
        assert min(run[2] for run in shown) == start
        if record["source_type"] != "html":
            # Text formats: the chunk's retained text is one verbatim slice of the source.
            verbatim = [run for run in shown if run[4] == "source"]
            assert verbatim[0][2] == start


def test_sections_are_paths_of_the_documents_own_headings(
    written: list[dict[str, Any]], tree: Path
) -> None:
    checked = 0
    for record in _text_formats(written):
        titles = headings(record["source_type"], parsed_text(tree / record["source"]))
        path = record["metadata"]["heading_path"]
        if record["source_type"] == "text":
            assert path == []
            continue
        position = -1
        for title in path:
            # Each title is a heading of this document, after its parent in document order.
            later = [i for i, t in enumerate(titles) if i > position and loose(title) == t]
            assert later, (record["source"], title, titles[:10])
            position = later[0]
            checked += 1
    assert checked > 100


def test_the_pdf_is_chunked_with_its_pages(output: Path) -> None:
    rows = manifest_rows(output)
    row = rows["papers/multicolumn.pdf"]
    assert (row["state"], row["source_type"]) == ("chunked", "pdf")
    assert (row["pages"], row["pages_with_text"]) == (3, 3)
    assert {r["state"] for r in rows.values()} == {"chunked"}
    assert {r["pages"] for path, r in rows.items() if path != "papers/multicolumn.pdf"} == {None}


def test_report_json_counts_every_file(output: Path, written: list[dict[str, Any]]) -> None:
    report = json.loads(output.with_name("report.json").read_text(encoding="utf-8"))
    assert report["states"] == {
        "chunked": 11, "empty": 0, "skipped": 0, "failed": 0, "quarantined": 0
    }  # fmt: skip
    assert report["totals"]["chunks"] == len(written)
    assert report["totals"]["token_max"] == max(r["token_estimate"] for r in written)
    assert report["skipped"] == []
    assert (report["by_type"]["pdf"]["pages"], report["by_type"]["pdf"]["text_page_rate"]) == (
        3,
        1.0,
    )


def test_validate_passes_on_the_output(
    output: Path, tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(output), "--source-dir", str(tree)]) == 0
    assert capsys.readouterr().out.strip().endswith(": OK")


def test_two_runs_and_one_or_two_workers_are_byte_identical(
    output: Path, tree: Path, tmp_path: Path
) -> None:
    again, pooled = tmp_path / "again.jsonl", tmp_path / "pooled.jsonl"
    assert ingest(tree, again, *OPTIONS, "--workers", "1") == 0
    assert ingest(tree, pooled, *OPTIONS, "--workers", "2") == 0
    assert sha256(again) == sha256(output) == sha256(pooled)
    strip = {"path"}
    assert {
        path: {k: v for k, v in row.items() if k not in strip}
        for path, row in manifest_rows(pooled).items()
    } == {
        path: {k: v for k, v in row.items() if k not in strip}
        for path, row in manifest_rows(output).items()
    }


def test_a_second_run_with_the_cache_reparses_nothing(
    output: Path, tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "steps.sqlite"
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    assert ingest(tree, first, *OPTIONS, "--cache", str(cache)) == 0
    assert "0 parses and 0 chunkings replayed, 11 files parsed" in capsys.readouterr().out
    assert ingest(tree, second, *OPTIONS, "--cache", str(cache)) == 0
    assert "11 parses and 11 chunkings replayed, 0 files parsed" in capsys.readouterr().out
    assert sha256(first) == sha256(second) == sha256(output)
    # The same through the library and its events: every parse is a CacheHit.
    recorder = EventRecorder()
    result = run_ingest(
        IngestConfig(
            tree,
            tmp_path / "third.jsonl",
            cache=cache,
            max_tokens=MAX_TOKENS,
            metadata=(("tenant", "acme"),),
        ),
        listeners=[recorder],
    )
    parsing = [e for e in recorder.of_type(ItemStarted) if e.event_name == "Parsing"]
    hits = [e for e in recorder.of_type(CacheHit) if e.event_name == "Parsing"]
    assert len(parsing) == len(hits) == 11
    assert result.fresh_parses == 0 and result.parse_cache_hits == 11
    assert sha256(tmp_path / "third.jsonl") == sha256(output)


def test_an_edited_file_is_reparsed_and_only_it(tree: Path, tmp_path: Path) -> None:
    copy = tmp_path / "docs"
    import shutil

    shutil.copytree(tree, copy)
    cache = tmp_path / "steps.sqlite"
    config = IngestConfig(copy, tmp_path / "out.jsonl", cache=cache, max_tokens=MAX_TOKENS)
    run_ingest(config)
    target = copy / "examples" / "mixed.md"
    target.write_text(target.read_text(encoding="utf-8") + "\n\nOne more paragraph.\n")
    result = run_ingest(config)
    assert result.fresh_parses == 1 and result.parse_cache_hits == 10


def test_environment_variables_supply_input_and_output(
    tree: Path, output: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "env.jsonl"
    monkeypatch.setenv("RAG_INPUT_DIR", str(tree))
    monkeypatch.setenv("RAG_OUTPUT_FILE", str(target))
    assert main(["ingest", *OPTIONS]) == 0
    assert sha256(target) == sha256(output)


def test_missing_input_is_an_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("RAG_INPUT_DIR", raising=False)
    monkeypatch.delenv("RAG_OUTPUT_FILE", raising=False)
    assert main(["ingest"]) == 1
    assert "RAG_INPUT_DIR" in capsys.readouterr().err


def test_format_override_reads_text_files_as_rst(tree: Path, tmp_path: Path) -> None:
    source = tmp_path / "in"
    source.mkdir()
    rst = (tree / "examples" / "python-tutorial-controlflow.rst").read_text(encoding="utf-8")
    (source / "controlflow.txt").write_text(rst, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert ingest(source, out, "--format", "*.txt=rst") == 0
    written = records(out)
    assert {r["source_type"] for r in written} == {"rst"}
    assert any(r["section"].startswith("More Control Flow Tools > ") for r in written)


@pytest.mark.parametrize("chunker", ["recursive", "heading"])
def test_other_chunkers_produce_valid_records(
    chunker: str, tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    status = ingest(tree, out, "--chunker", chunker, "--include", "examples/*.md")
    assert status == 0
    written = records(out)
    assert {r["source"] for r in written} == {
        "examples/mixed.md", "examples/node-async_context.md", "examples/wiki.md"
    }  # fmt: skip
    for record in _text_formats(written):
        content = parsed_text(tree / record["source"])
        assert record["metadata"]["offset_mode"] in ("verbatim", "suffix")
        assert content[record["char_start"] : record["char_end"]] in record["text"]
    assert main(["validate", str(out), "--source-dir", str(tree)]) == 0
    capsys.readouterr()


def test_a_terminal_gets_a_progress_bar_instead_of_log_lines(
    tree: Path,
    output: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich then treats the captured stream as a TTY
    target = tmp_path / "tty.jsonl"
    assert ingest(tree, target, *OPTIONS) == 0
    err = capsys.readouterr().err
    assert "Ingesting" in err and "fastrag ingest: [" not in err
    assert sha256(target) == sha256(output)
