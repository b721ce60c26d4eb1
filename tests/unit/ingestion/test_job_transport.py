"""How records leave a worker and reach the output: the same bytes as an in-process run.

A pool or Dask worker sends each file's records as UTF-8 JSONL plus the few fields the
parent's report reads; the parent spools those bytes (``JsonlWriter.add_lines``) or, when
it indexes, parses them back (``BatchResult.outcomes``). Everything here runs the real
graph over real documents (Node.js's Markdown API docs, a Wikipedia HTML page) and
compares with the in-process path: record for record, and byte for byte.
"""

from __future__ import annotations

import asyncio
import json
import math
import pickle
import shutil
from enum import Enum, IntEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from fastrag.exceptions import ValidationError
from fastrag.ingestion import _job_workers
from fastrag.ingestion._job_config import IngestConfig, build_plan
from fastrag.ingestion._job_run import DocumentOutcome, run_share
from fastrag.ingestion._job_workers import REPORT_KEYS, BatchResult
from fastrag.ingestion.jsonl import JsonlWriter
from fastrag.ingestion.records import _jsonable, jsonable
from fastrag.ingestion.sources import discover
from fastrag.models import Document
from tests._paths import CORPUS, NODE_API_DOCS

DOCUMENTS = (
    NODE_API_DOCS / "addons.md",
    NODE_API_DOCS / "dns.md",
    CORPUS / "web" / "wiki_duck.html",
)
SEPARATORS = "\u2028\u0085"
"""Characters ``json.dumps(ensure_ascii=False)`` leaves unescaped and ``str.splitlines``
splits at: a record holding them is still one JSONL line."""


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("transport") / "in"
    root.mkdir()
    for path in DOCUMENTS:
        if not path.is_file():
            pytest.skip(f"{path} is not installed")
        shutil.copyfile(path, root / path.name)
    # A real page whose prose holds a line separator and a NEL, as scraped text can.
    text = (NODE_API_DOCS / "dgram.md").read_text(encoding="utf-8")
    first = text.index("\n\n", text.index("\n\n") + 2) + 2
    (root / "separators.md").write_text(
        text[:first] + f"Before{SEPARATORS[0]}between{SEPARATORS[1]}after. " + text[first:],
        encoding="utf-8",
    )
    return root


@pytest.fixture(scope="module")
def config(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> IngestConfig:
    output = tmp_path_factory.mktemp("transport-out") / "chunks.jsonl"
    return IngestConfig(tree, output, max_tokens=200, workers=2)


def _raws(config: IngestConfig) -> list[Document]:
    files = discover(config.input_dir)
    return [source.to_document(config.caller_metadata()) for source in files]


async def _collect(config: IngestConfig, raws: list[Document]) -> list[DocumentOutcome]:
    return [outcome async for outcome in run_share(build_plan(config), raws)]


@pytest.fixture(scope="module")
def local(config: IngestConfig) -> list[DocumentOutcome]:
    """What an in-process run (``--workers 1``) hands the writer."""
    return asyncio.run(_collect(config, _raws(config)))


@pytest.fixture(scope="module")
def sent(config: IngestConfig) -> BatchResult:
    """One batch as a pool worker returns it, through pickle as through the pool's pipe."""
    _job_workers._initialize(config)
    try:
        result = _job_workers._run_batch(_raws(config))
    finally:
        _job_workers._PLAN = None
    restored: BatchResult = pickle.loads(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    return restored


def test_the_fixture_holds_records_with_unescaped_separators(
    local: list[DocumentOutcome],
) -> None:
    assert [outcome.entry.state for outcome in local] == ["chunked"] * 4
    texts = [record["text"] for outcome in local for record in outcome.records]
    assert any(SEPARATORS[0] in text and SEPARATORS[1] in text for text in texts)


def test_parsed_back_records_equal_the_in_process_records(
    sent: BatchResult, local: list[DocumentOutcome]
) -> None:
    outcomes = list(sent.outcomes())
    assert [outcome.entry for outcome in outcomes] == [outcome.entry for outcome in local]
    for got, expected in zip(outcomes, local, strict=True):
        assert got.records == expected.records


def test_spooled_bytes_equal_what_the_writer_makes_of_the_records(
    sent: BatchResult, local: list[DocumentOutcome], tmp_path: Path
) -> None:
    with JsonlWriter(tmp_path / "local.jsonl") as writer:
        for outcome in local:
            writer.add(outcome.entry.path, outcome.records)
    with JsonlWriter(tmp_path / "sent.jsonl") as writer:
        for entry, lines, rows in sent.serialized():
            writer.add_lines(entry.path, lines, len(rows))
    expected = (tmp_path / "local.jsonl").read_bytes()
    assert (tmp_path / "sent.jsonl").read_bytes() == expected
    assert expected.count(b"\n") == sum(len(outcome.records) for outcome in local)


def test_report_rows_are_the_reported_fields_of_each_record(
    sent: BatchResult, local: list[DocumentOutcome]
) -> None:
    rows = [row for _, _, document_rows in sent.serialized() for row in document_rows]
    records = [record for outcome in local for record in outcome.records]
    assert rows == [{key: record[key] for key in REPORT_KEYS} for record in records]


def test_add_lines_refuses_bytes_that_cannot_be_the_records(tmp_path: Path) -> None:
    writer = JsonlWriter(tmp_path / "out.jsonl")
    with pytest.raises(ValidationError, match=r"'a\.md' were given as 1 JSONL lines for 2 "):
        writer.add_lines("a.md", b"{}\n", 2)
    with pytest.raises(ValidationError, match=r"'b\.md' were given as 1 JSONL lines for 1 "):
        writer.add_lines("b.md", b"{}\n{}", 1)
    with pytest.raises(ValidationError, match=r"'c\.md' were given as 0 JSONL lines for 0 "):
        writer.add_lines("c.md", b"{}", 0)
    writer.abort()


class _Colour(Enum):
    RED = "red"


class _Level(IntEnum):
    HIGH = 3


@pytest.mark.parametrize(
    "value",
    [
        {"b": (1, 2.5, _Colour.RED, _Level.HIGH), "a": {"z": None, "y": [True, "x"]}},
        MappingProxyType({"k": ((1, 2), (3, 4)), "j": MappingProxyType({"i": ()})}),
        {"deep": [[[{"x": 1}]]]},
    ],
)
def test_jsonable_fast_path_converts_as_the_reference(value: Any) -> None:
    converted = jsonable(value)
    assert converted == _jsonable(value)
    assert json.dumps(converted) == json.dumps(_jsonable(value))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"a": {1: "x"}}, "M['a'] has the key 1 of type int; record metadata keys must be str"),
        ({"a": [0, math.nan]}, "M['a'][1] is nan, which JSON cannot represent"),
        ({"a": {"b": {1, 2}}}, "M['a']['b'] is a set ({1, 2}), which has no exact JSON form"),
        ({"a": [{"n": math.inf}]}, "M['a'][0]['n'] is inf, which JSON cannot represent"),
        ({2: "x"}, "M has the key 2 of type int"),
    ],
)
def test_jsonable_names_where_a_value_sits(value: Any, message: str) -> None:
    with pytest.raises(ValidationError) as raised:
        jsonable(value, "M")
    assert str(raised.value).startswith(message)


def test_jsonable_converts_real_chunk_metadata_as_the_reference(
    local: list[DocumentOutcome], config: IngestConfig
) -> None:
    plan = build_plan(config)
    parsed = asyncio.run(plan.parsers(_raws(config)).run())
    chunks = asyncio.run(plan.chunker(parsed).run())
    assert len(chunks) == sum(len(outcome.records) for outcome in local)
    for chunk in chunks:
        assert json.dumps(jsonable(chunk.metadata)) == json.dumps(_jsonable(chunk.metadata))
