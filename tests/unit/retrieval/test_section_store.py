"""``SectionStore``: sections derived from real records, checked against ``SectionIndex``.

The reference is the in-memory ``SectionIndex`` over the same document's normalized
parent (the exact tree). The store, built from the JSONL records alone, must agree on
ids, heading paths and nesting, and its ranges must contain the exact ones — exactly
equal where chunks break at section boundaries.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from fastrag.exceptions import CacheError
from fastrag.ingestion._job_config import build_plan
from fastrag.ingestion.job import IngestConfig, run_ingest
from fastrag.ingestion.sources import discover
from fastrag.models import Document
from fastrag.pipeline import IterableSource, Pipeline
from fastrag.retrieval import SectionIndex
from fastrag.retrieval.section_store import (
    SectionStore,
    default_section_store_path,
    sections_of,
)
from tests._paths import NODE_API_DOCS


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], SectionIndex]:
    root = tmp_path_factory.mktemp("sections")
    (root / "docs").mkdir()
    shutil.copyfile(NODE_API_DOCS / "punycode.md", root / "docs" / "punycode.md")
    config = IngestConfig(input_dir=root / "docs", output=root / "c.jsonl", max_tokens=120)
    run_ingest(config)
    records = [json.loads(line) for line in config.output.read_text().splitlines()]
    plan = build_plan(config)
    raw = discover(root / "docs")[0].to_document({})

    async def parse() -> list[Document]:
        return [d async for d in Pipeline(plan.parsers(IterableSource([raw]))).stream()]

    parent = asyncio.run(parse())[0]
    normalizers = plan.chunker.normalizers  # type: ignore[attr-defined]
    return records, SectionIndex([normalizers.normalize(parent)])


def _hit(record: dict[str, Any]) -> Document:
    return Document(record["chunk_id"], "hit", record["text"], record["metadata"])


def test_stored_sections_agree_with_the_exact_section_index(
    ingested: tuple[list[dict[str, Any]], SectionIndex], tmp_path: Path
) -> None:
    records, index = ingested
    path = tmp_path / "s.sqlite"
    with SectionStore(path) as store:
        store.replace("punycode.md", sections_of("punycode.md", records))
    exact_ranges = 0
    with SectionStore(path) as store:  # a fresh connection: nothing held in memory
        for record in records:
            hit = _hit(record)
            exact = {s.section_id: s for s in index.resolve(hit) if s.kind == "section"}
            stored = store.resolve(record["document_id"], record["metadata"]["section_ids"])
            assert stored, record["chunk_id"]
            for section in stored:
                truth = exact[section.section_id]
                assert section.char_start is not None and section.char_end is not None
                assert section.char_start <= truth.char_start
                assert section.char_end >= truth.char_end
                exact_ranges += (section.char_start, section.char_end) == (
                    truth.char_start,
                    truth.char_end,
                )
                if section.heading_path:
                    assert section.heading_path == truth.heading_path
                if section.parent_id is not None:
                    assert section.parent_id in exact  # an ancestor of the hit's section
                if section.section_id in record["metadata"]["section_ids"]:
                    assert record["chunk_id"] in section.chunk_ids
    assert exact_ranges >= len(records)


def test_four_sibling_sections_resolve_exactly(
    ingested: tuple[list[dict[str, Any]], SectionIndex],
) -> None:
    records, _ = ingested
    sections = {s.heading_path[-1]: s for s in sections_of("x.md", records) if s.heading_path}
    root = sections["Punycode"]
    assert (root.char_start, root.char_end, root.parent_id) == (0, 4049, None)
    for title, span in {
        "punycode.decode(string)": (1506, 1811),
        "punycode.encode(string)": (1813, 2105),
        "punycode.toASCII(domain)": (2107, 2670),
        "punycode.toUnicode(domain)": (2672, 3166),
    }.items():
        section = sections[title]
        assert (section.char_start, section.char_end) == span
        assert section.heading_path == ("Punycode", title)
        assert section.parent_id == root.section_id


def test_replace_drops_the_previous_generation_of_a_source(
    ingested: tuple[list[dict[str, Any]], SectionIndex], tmp_path: Path
) -> None:
    records, _ = ingested
    document_id = records[0]["document_id"]
    first_section = records[0]["metadata"]["section_ids"][0]
    with SectionStore(tmp_path / "s.sqlite") as store:
        store.replace("a.md", sections_of("a.md", records))
        assert store.get(document_id, first_section) is not None
        store.replace("a.md", sections_of("a.md", records[:1]))
        kept = {s.section_id for s in sections_of("a.md", records[:1])}
        count = store._connection.execute("SELECT count(*) FROM fastrag_sections").fetchone()
        assert count == (len(kept),)
        store.remove("a.md")
        assert store.get(document_id, first_section) is None


def test_a_foreign_file_is_refused_with_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE fastrag_sections_meta (name TEXT PRIMARY KEY, value TEXT)")
        connection.execute("INSERT INTO fastrag_sections_meta VALUES ('format', 'something')")
    connection.close()
    with pytest.raises(CacheError, match=r"not a fastrag section store.*delete it"):
        SectionStore(path)


def test_the_section_file_sits_beside_the_manifest() -> None:
    manifest = Path("out/chunks.jsonl.manifest.sqlite")
    assert default_section_store_path(manifest) == Path("out/chunks.jsonl.sections.sqlite")
