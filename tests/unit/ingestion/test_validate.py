"""``validate_jsonl`` passes real output and catches each kind of tampering, by record."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from fastrag.ingestion.steps.chunking import RecursiveCharacterTextSplitter
from fastrag.ingestion.validate import validate_jsonl
from fastrag.tokenization import TiktokenTokenizer, Utf8ByteTokenizer
from tests.unit.ingestion._ingest_helpers import EXAMPLES, ingest, read_records, write_records

TIKTOKEN = TiktokenTokenizer()


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    output = tmp_path_factory.mktemp("validate") / "out.jsonl"
    ingest(EXAMPLES, output, tokenizer=TIKTOKEN)
    return output, read_records(output)


def _rules(path: Path, **kwargs: Any) -> set[tuple[int, str]]:
    report = validate_jsonl(path, EXAMPLES, **kwargs)
    return {(problem.line, problem.rule) for problem in report.problems}


def test_real_structure_aware_output_is_clean(clean: tuple[Path, list[dict[str, Any]]]) -> None:
    output, records = clean
    report = validate_jsonl(output, EXAMPLES)
    assert report.ok, [str(p) for p in report.problems]
    assert report.records == len(records) and report.documents == len(list(EXAMPLES.iterdir()))
    assert validate_jsonl(output, EXAMPLES, tokenizer=TIKTOKEN, max_tokens=200).ok


def test_real_recursive_output_is_clean(tmp_path: Path) -> None:
    output = tmp_path / "out.jsonl"
    chunker = RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=50)
    ingest(EXAMPLES, output, tokenizer=Utf8ByteTokenizer(), chunker=chunker, max_tokens=2000)
    report = validate_jsonl(output, EXAMPLES)
    assert report.ok, [str(p) for p in report.problems]


def _tampered(tmp_path: Path, records: list[dict[str, Any]], number: int, **changes: Any) -> Path:
    changed = [dict(record) for record in records]
    changed[number - 1].update(changes)
    path = tmp_path / "tampered.jsonl"
    write_records(path, changed)
    return path


def _structural(records: list[dict[str, Any]], source: str) -> int:
    return next(
        n
        for n, r in enumerate(records, start=1)
        if r["source"] == source and r["metadata"]["chunk_index"] == 1
    )


def test_a_shifted_offset_is_caught(
    tmp_path: Path, clean: tuple[Path, list[dict[str, Any]]]
) -> None:
    _, records = clean
    number = _structural(records, "node-async_context.md")
    record = records[number - 1]
    metadata = {**record["metadata"], "char_start": record["char_start"] + 1}
    metadata["serialization_map"] = [
        [d0, d1, s0 + 1, s1 + 1, kind] for d0, d1, s0, s1, kind in metadata["serialization_map"]
    ]
    path = _tampered(
        tmp_path, records, number, char_start=record["char_start"] + 1, metadata=metadata
    )
    rules = _rules(path)
    assert (number, "offsets") in rules
    assert (number, "structure") in rules


def test_a_tampered_token_count_is_caught(
    tmp_path: Path, clean: tuple[Path, list[dict[str, Any]]]
) -> None:
    _, records = clean
    path = _tampered(tmp_path, records, 3, token_estimate=records[2]["token_estimate"] - 1)
    assert _rules(path) == {(3, "token_estimate")}


def test_an_over_budget_chunk_is_caught(clean: tuple[Path, list[dict[str, Any]]]) -> None:
    output, records = clean
    largest = max(records, key=lambda r: r["token_estimate"])
    report = validate_jsonl(output, EXAMPLES, max_tokens=largest["token_estimate"] - 1)
    assert "budget" in {p.rule for p in report.problems}


def test_a_duplicate_chunk_id_is_caught(
    tmp_path: Path, clean: tuple[Path, list[dict[str, Any]]]
) -> None:
    _, records = clean
    path = _tampered(tmp_path, records, 5, chunk_id=records[3]["chunk_id"])
    report = validate_jsonl(path, EXAMPLES)
    assert [(p.line, p.rule, p.detail) for p in report.problems] == [
        (5, "duplicate chunk_id", "already used by record 4")
    ]


def test_a_wrong_document_id_is_caught(
    tmp_path: Path, clean: tuple[Path, list[dict[str, Any]]]
) -> None:
    _, records = clean
    assert (2, "document_id") in _rules(_tampered(tmp_path, records, 2, document_id="0" * 32))


def test_a_changed_source_is_caught(
    tmp_path: Path, clean: tuple[Path, list[dict[str, Any]]]
) -> None:
    output, _ = clean
    copy = tmp_path / "src"
    shutil.copytree(EXAMPLES, copy)
    (copy / "wiki.md").write_text("# Changed\n\nentirely\n", encoding="utf-8")
    report = validate_jsonl(output, copy)
    sources = {p.source for p in report.problems if p.rule == "document_id"}
    assert sources == {"wiki.md"}


def test_a_missing_field_is_caught(
    tmp_path: Path, clean: tuple[Path, list[dict[str, Any]]]
) -> None:
    _, records = clean
    changed = [dict(r) for r in records]
    del changed[0]["section"]
    path = tmp_path / "missing.jsonl"
    write_records_unchecked(path, changed)
    report = validate_jsonl(path, EXAMPLES)
    assert any(
        p.line == 1 and p.rule == "fields" and "section" in p.detail for p in report.problems
    )


def test_wrong_types_and_bad_json_are_caught(
    tmp_path: Path, clean: tuple[Path, list[dict[str, Any]]]
) -> None:
    _, records = clean
    changed = [dict(r) for r in records]
    changed[0]["char_start"] = True
    path = tmp_path / "types.jsonl"
    write_records_unchecked(path, changed)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    rules = _rules(path)
    assert (1, "types") in rules and (len(records) + 1, "json") in rules


def test_out_of_order_records_are_caught(
    tmp_path: Path, clean: tuple[Path, list[dict[str, Any]]]
) -> None:
    _, records = clean
    changed = list(records)
    changed[0], changed[1] = changed[1], changed[0]
    path = tmp_path / "order.jsonl"
    write_records(path, changed)
    assert {rule for _, rule in _rules(path)} >= {"chunk_index"}
    reversed_documents = sorted(records, key=lambda r: r["source"] != "wiki.md")
    write_records(path, reversed_documents)
    assert "ordering" in {rule for _, rule in _rules(path)}


def write_records_unchecked(path: Path, records: list[dict[str, Any]]) -> None:
    import json

    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )


def test_without_the_parsing_package_sources_are_decoded_and_the_report_says_so(
    monkeypatch: pytest.MonkeyPatch, clean: tuple[Path, list[dict[str, Any]]]
) -> None:
    from fastrag.ingestion import _validate_source

    def unavailable(name: str) -> None:
        raise ImportError(name)

    monkeypatch.setattr(_validate_source, "importlib", SimpleNamespace(import_module=unavailable))
    output, _ = clean
    report = validate_jsonl(output, EXAMPLES)
    assert report.ok and report.notes == (_validate_source.FALLBACK_NOTE,)
