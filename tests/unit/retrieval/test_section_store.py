"""``SectionStore``: the exact sections of real documents, resolved from SQLite alone.

The reference is the in-memory ``SectionIndex`` over the same normalized parent. The
store is written through one connection and read through a fresh one, so nothing is
held in memory between them; for every chunk of a real Markdown and a real HTML
document it must return exactly what the index returns.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import pytest

from fastrag.exceptions import CacheError, ValidationError
from fastrag.ingestion.sources import discover
from fastrag.ingestion.steps.chunking import StructureAwareChunker
from fastrag.ingestion.steps.parsing import default_parsers
from fastrag.models import Document
from fastrag.normalization import NormalizedDocument, NormalizerRegistry
from fastrag.pipeline import CacheHit, Event, IterableSource, Pipeline, SqliteCacheStore
from fastrag.retrieval import SectionIndex
from fastrag.retrieval import section_store as section_store_module
from fastrag.retrieval._kept_trees import KeptTrees
from fastrag.retrieval._sections import DocumentSections, document_sections
from fastrag.retrieval.section_store import SectionStore, default_section_store_path
from tests._paths import CORPUS, NODE_API_DOCS

GUIDE = (
    "# Guide\n\nThis guide explains the tool.\n\n"
    "## Install\n\nRun the installer once; it asks for nothing.\n\n"
    "### Linux\n\nUse the package.\n\n"
    "### macOS\n\nUse the disk image.\n\n"
    "## Use\n\nStart it from a terminal.\n"
)
"""Small sibling sections that the chunker merges: ``macOS`` starts mid-chunk."""


def _parsed(folder: Path, name: str) -> Document:
    source = next(s for s in discover(folder) if s.relative_path == name)

    async def parse() -> list[Document]:
        graph = default_parsers()(IterableSource([source.to_document({})]))
        return [document async for document in Pipeline(graph).stream()]

    return asyncio.run(parse())[0]


def _hits(tree: NormalizedDocument, max_tokens: int) -> list[Document]:
    chunker = StructureAwareChunker(
        max_tokens=max_tokens, target_tokens=max_tokens * 2 // 3, cache=False
    )
    return [
        Document(f"hit-{n}", tree.document.source_id, content, metadata)
        for n, (content, metadata) in enumerate(chunker.split_normalized(tree))
    ]


def _stored(tmp_path: Path, tree: NormalizedDocument, source: str = "doc") -> Path:
    path = tmp_path / "s.sections.sqlite"
    with SectionStore(path) as store:
        store.replace(source, document_sections(tree), "generation-1")
    return path


@pytest.mark.parametrize(
    ("folder", "name", "max_tokens"),
    [(NODE_API_DOCS, "punycode.md", 120), (CORPUS / "web", "wiki_duck.html", 200)],
)
def test_every_hit_resolves_exactly_as_the_in_memory_index(
    tmp_path: Path, folder: Path, name: str, max_tokens: int
) -> None:
    tree = NormalizerRegistry().normalize(_parsed(folder, name))
    hits = _hits(tree, max_tokens)
    assert len(hits) > 10
    path = _stored(tmp_path, tree, name)
    index = SectionIndex([tree])
    sections = [node for node in tree.nodes if node.kind == "section"]
    with SectionStore(path) as store:  # a fresh connection: only the file is shared
        for hit in hits:
            for ancestors in (True, False):
                expected = index.resolve(hit, ancestors)
                assert expected
                assert store.resolve(hit, ancestors) == expected, hit.id
        (held,) = store.documents()
    assert (held.source, held.document_id, held.generation) == (
        name,
        tree.document.id,
        "generation-1",
    )
    assert held.stored
    assert held.sections == len(sections) + (document_sections(tree).preamble is not None)


def test_html_sections_are_the_readable_text_not_the_markup(tmp_path: Path) -> None:
    tree = NormalizerRegistry().normalize(_parsed(CORPUS / "web", "wiki_duck.html"))
    hit = next(
        h for h in _hits(tree, 200) if tuple(h.metadata["heading_path"])[-1:] == ("Taxonomy",)
    )
    with SectionStore(_stored(tmp_path, tree)) as store:
        section = store.resolve(hit, ancestors=False)[0]
    assert section.heading_path[-1] == "Taxonomy"
    assert section.content.startswith("Taxonomy\n\nAll ducks belong to the")
    assert "<" not in section.content
    # The range is the markup's; the content is much shorter than that source slice.
    assert len(section.content) < section.char_end - section.char_start


def test_a_subsection_starting_mid_chunk_resolves_to_its_exact_text(tmp_path: Path) -> None:
    parent = Document("guide", "guide.md", GUIDE, metadata={"content_format": "markdown"})
    tree = NormalizerRegistry().normalize(parent)
    merged = [h for h in _hits(tree, 400) if len(h.metadata["section_ids"]) > 1]
    assert merged, "the chunker merges the small sibling sections"
    hit = merged[0]
    with SectionStore(_stored(tmp_path, tree)) as store:
        resolved = store.resolve(hit)
    by_title = {section.heading_path[-1]: section for section in resolved}
    macos = by_title["macOS"]
    assert macos.char_start > hit.metadata["char_start"]  # it starts inside the chunk
    assert macos.content == "### macOS\n\nUse the disk image."
    assert GUIDE[macos.char_start : macos.char_end] == macos.content
    assert macos.heading_path == ("Guide", "Install", "macOS")
    assert macos.level == 3
    assert by_title["Install"].content.startswith("## Install\n") and by_title["Guide"]
    assert resolved == SectionIndex([tree]).resolve(hit)


def test_replace_keeps_only_the_new_generation_and_remove_forgets(tmp_path: Path) -> None:
    old = NormalizerRegistry().normalize(
        Document("old", "guide.md", GUIDE, metadata={"content_format": "markdown"})
    )
    changed = GUIDE.replace("## Use\n", "## Use it\n")
    new = NormalizerRegistry().normalize(
        Document("new", "guide.md", changed, metadata={"content_format": "markdown"})
    )
    path = tmp_path / "s.sqlite"
    with SectionStore(path) as store:
        store.replace("guide.md", document_sections(old), "g1")
        old_hit = _hits(old, 400)[0]
        assert store.resolve(old_hit)
        store.replace("guide.md", document_sections(new), "g2")
        assert store.generation("guide.md") == "g2"
        with pytest.raises(KeyError, match=r"document 'old' of hit .* has no sections"):
            store.resolve(old_hit)
        assert store.resolve(old_hit, missing="skip") == ()
        titles = [s.heading_path[-1] for s in store.resolve(_hits(new, 400)[-1])]
        assert titles[-1] == "Use it"
        store.remove("guide.md")
        assert store.documents() == []
        assert store.generation("guide.md") is None
        pages = store._connection.execute("SELECT count(*) FROM fastrag_section_text").fetchone()
        assert pages == (0,)


def test_a_text_longer_than_one_page_is_read_back_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(section_store_module, "_PAGE_CHARS", 97)  # many pages, odd size
    tree = NormalizerRegistry().normalize(_parsed(NODE_API_DOCS, "punycode.md"))
    path = _stored(tmp_path, tree)
    index = SectionIndex([tree])
    with SectionStore(path) as store:
        for hit in _hits(tree, 120):
            assert store.resolve(hit) == index.resolve(hit)


def test_a_document_over_the_text_cap_keeps_no_sections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = NormalizerRegistry().normalize(
        Document("guide", "guide.md", GUIDE, metadata={"content_format": "markdown"})
    )
    monkeypatch.setattr(section_store_module, "MAX_TEXT_CHARS", len(GUIDE) - 1)
    path = _stored(tmp_path, tree)
    hit = _hits(tree, 400)[0]
    with SectionStore(path) as store:
        (held,) = store.documents()
        assert (held.stored, held.sections, held.text_chars) == (False, 0, len(GUIDE))
        cap = f"\\({len(GUIDE)} characters\\) is over the section store's cap of {len(GUIDE) - 1}"
        with pytest.raises(KeyError, match=cap):
            store.resolve(hit)
        assert store.resolve(hit, missing="skip") == ()


def test_two_files_with_one_content_resolve_through_the_hit_source(tmp_path: Path) -> None:
    tree = NormalizerRegistry().normalize(
        Document("guide", "a.md", GUIDE, metadata={"content_format": "markdown"})
    )
    path = tmp_path / "s.sqlite"
    with SectionStore(path) as store:
        store.replace("a.md", document_sections(tree))
        store.replace("b.md", document_sections(tree))
        store.remove("a.md")
        hit = _hits(tree, 400)[0]  # its source is a.md, gone: b.md holds the same text
        assert store.resolve(hit) == SectionIndex([tree]).resolve(hit)


SCHEMA_1 = (
    "CREATE TABLE fastrag_sections_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE fastrag_sections (source TEXT NOT NULL, document_id TEXT NOT NULL,"
    " section_id TEXT NOT NULL, heading_path TEXT NOT NULL, char_start INTEGER,"
    " char_end INTEGER, parent_id TEXT, chunk_ids TEXT NOT NULL,"
    " PRIMARY KEY (document_id, section_id, source))",
    "INSERT INTO fastrag_sections_meta VALUES ('format', 'fastrag-section-store'),"
    " ('schema_version', '1')",
    "INSERT INTO fastrag_sections VALUES ('a.md', 'd', 's', '[]', 0, 1, NULL, '[]')",
)


def test_an_old_schema_is_refused_with_the_fix_and_rebuilt_by_ingest(tmp_path: Path) -> None:
    path = tmp_path / "old.sections.sqlite"
    with sqlite3.connect(path) as connection:
        for statement in SCHEMA_1:
            connection.execute(statement)
    connection.close()
    with pytest.raises(CacheError, match=r"has schema 1, .* re-run fastrag ingest --store"):
        SectionStore(path)
    with SectionStore(path, rebuild=True) as store:
        assert store.documents() == []
        tables = {row[0] for row in store._connection.execute("SELECT name FROM sqlite_master")}
        assert "fastrag_sections" not in tables
    with SectionStore(path) as store:  # now of the current schema
        assert store.documents() == []


def test_a_foreign_file_is_refused_even_when_rebuilding(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    connection.close()
    with pytest.raises(CacheError, match=r"an SQLite database of something else.*delete it"):
        SectionStore(path, rebuild=True)
    other = tmp_path / "other2.sqlite"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE fastrag_sections_meta (name TEXT, value TEXT)")
        connection.execute("INSERT INTO fastrag_sections_meta VALUES ('format', 'something')")
    connection.close()
    with pytest.raises(CacheError, match=r"not a fastrag section store"):
        SectionStore(other, rebuild=True)


def test_the_json_payload_round_trips_and_refuses_anything_else() -> None:
    tree = NormalizerRegistry().normalize(_parsed(CORPUS / "web", "wiki_duck.html"))
    sections = document_sections(tree)
    assert DocumentSections.from_json(sections.to_json()) == sections
    with pytest.raises(ValidationError, match="not a fastrag-sections:v1 section payload"):
        DocumentSections.from_json('{"format": "other"}')


async def _chunk(
    raws: list[Document], chunker: StructureAwareChunker, cache: SqliteCacheStore
) -> tuple[list[Document], list[Document], int]:
    """Parse, then chunk through the cache; the parents, the chunks and the cache hits."""
    parents = [item async for item in Pipeline(default_parsers()(IterableSource(raws))).stream()]
    hits: list[Event] = []

    def listen(event: Event) -> None:
        if isinstance(event, CacheHit):
            hits.append(event)

    pipeline = Pipeline(chunker(IterableSource(parents)), cache=cache, listeners=[listen])
    return parents, [chunk async for chunk in pipeline.stream()], len(hits)


def test_kept_trees_hand_over_the_chunkers_tree_fresh_or_replayed(tmp_path: Path) -> None:
    """The registry the ingest run gives the chunker: same ids, no second normalization."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("punycode.md", "wasi.html"):
        shutil.copyfile(NODE_API_DOCS / name, folder / name)
    raws = [source.to_document({}) for source in discover(folder)]
    cache = SqliteCacheStore(tmp_path / "cache.sqlite")
    for replayed in (0, 2):  # the second run replays the chunker's output from the cache
        trees = KeptTrees()
        chunker = StructureAwareChunker(normalizers=trees, max_tokens=200, target_tokens=120)
        plain = StructureAwareChunker(max_tokens=200, target_tokens=120)
        assert chunker.config_hash == plain.config_hash
        parents, chunks, hits = asyncio.run(_chunk(raws, chunker, cache))
        assert chunks
        assert hits == replayed
        for parent in parents:
            fresh = document_sections(NormalizerRegistry().normalize(parent))
            assert trees.sections(parent) == fresh
        assert trees.renormalized == 0
    cache.close()


def test_the_section_file_sits_beside_the_manifest() -> None:
    manifest = Path("out/chunks.jsonl.manifest.sqlite")
    assert default_section_store_path(manifest) == Path("out/chunks.jsonl.sections.sqlite")


def test_a_worker_batch_carries_the_sections_to_the_parent(tmp_path: Path) -> None:
    """What a pool worker or a Dask task sends back: the sections, exactly, as JSON."""
    from fastrag.ingestion._job_config import IngestConfig, build_plan
    from fastrag.ingestion._job_dask import _run_task, _seal

    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("punycode.md", "wasi.html"):
        shutil.copyfile(NODE_API_DOCS / name, folder / name)
    (folder / "notes.txt").write_text("", encoding="utf-8")  # empty: no sections
    raws = [source.to_document({}) for source in discover(folder)]
    store = f"milvus:{tmp_path / 'index.db'}"
    indexing = IngestConfig(input_dir=folder, output=tmp_path / "c.jsonl", store=store)
    assert build_plan(indexing).index_sections
    batch = _run_task(_seal(indexing), raws)  # the Dask task's code, run here
    outcomes = {outcome.entry.path: outcome for outcome in batch.outcomes()}
    assert outcomes["notes.txt"].sections is None
    for name in ("punycode.md", "wasi.html"):
        parent = _parsed(folder, name)
        expected = document_sections(NormalizerRegistry().normalize(parent))
        assert outcomes[name].sections == expected
    # A run that does not index sends nothing more than before.
    plain = IngestConfig(input_dir=folder, output=tmp_path / "c.jsonl")
    assert not build_plan(plain).index_sections
    assert _run_task(_seal(plain), raws).sections == ()
