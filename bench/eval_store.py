"""Chroma's dataset through the product's store path: ``fastrag ingest --store`` + search.

    .venv/bin/python bench/eval_store.py OUT_DIR [--modes dense,hybrid] [--k 5]
        [--min-preferred N] [--replica] [--reuse]

Run by hand (minutes: a hybrid ingest embeds every chunk and its window with
all-MiniLM-L6-v2). For each mode it ingests Chroma's five corpora with the real ingest and
indexing code (``run_ingest`` with a Milvus Lite store: structure chunker 200/128,
``min_preferred_tokens`` 64 by default as in ``fastrag eval``'s rows, in the model's own
word pieces, files read as plain text as ``fastrag eval`` reads them), asks the 472
questions through the real search path (``MilvusStore.search`` on a dense store,
``MilvusStore.hybrid_search`` — RRF of a dense ranking by chunk, window and best sentence
and BM25 over windows, de-duplicated — on a hybrid one) at k = 5, and scores the hits with
``fastrag.benchmarking.metrics``, exactly as ``fastrag eval`` scores its own index (chunk
source ranges from the records' ``serialization_map``, moved to the first occurrence of
their text). Writes ``OUT_DIR/store_eval.json`` and prints the overall and per-corpus
figures.

``--replica`` also re-ranks the hybrid store's own stored vectors and windows in process the
way ``fastrag eval`` ranks (exact inner products over every chunk, best sentence included,
``bm25s`` BM25, our RRF and de-duplication): the difference from the store's figures is then
Milvus's BM25 and RRF alone, and the difference from ``fastrag eval`` is where the windows
come from. ``--reuse`` scores stores a previous run left in OUT_DIR without ingesting again.

Differences from ``fastrag eval``'s recommended row (85.5 / 8.46), by construction: the
windows are cut from the document's chunks (eval: from the source text); BM25 is Milvus's
(standard tokenizer, same stop list; eval: ``bm25s``); the dense ranking scores the
candidates of the fused-vector and the sentence searches (eval: every chunk)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from fastrag.benchmarking.chroma import default_chroma_dir, load_chroma
from fastrag.benchmarking.chunking import IndexedChunk, move_to_first_occurrence
from fastrag.benchmarking.metrics import QuestionScore, aggregate, score_question, union
from fastrag.ingestion._job_index import build_embedder, open_store
from fastrag.ingestion.job import IngestConfig, run_ingest
from fastrag.llm import SentenceTransformerModel
from fastrag.tokenization import HuggingFaceTokenizer

_SOURCE_KINDS = frozenset({"source", "rendered", "overlap", "context"})


def _chunks(jsonl: Path, documents: dict[str, str]) -> dict[str, IndexedChunk]:
    """Each record as an evaluation chunk (first-occurrence spans), by chunk id."""
    chunks: dict[str, IndexedChunk] = {}
    for line in jsonl.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        metadata = record["metadata"]
        name = Path(record["source"]).stem
        spans = union(
            (entry[2], entry[3])
            for entry in metadata.get("serialization_map", ())
            if entry[4] in _SOURCE_KINDS and entry[2] >= 0 and entry[3] > entry[2]
        ) or [(int(record["char_start"]), int(record["char_end"]))]
        chunk = IndexedChunk(name, tuple(spans), record["text"], record["text"])
        chunks[record["chunk_id"]] = move_to_first_occurrence(chunk, documents[name])
    return chunks


def _ingest(
    out: Path, mode: str, tokenizer: HuggingFaceTokenizer, min_preferred: int
) -> tuple[Path, str, float]:
    folder = out / mode
    folder.mkdir(parents=True, exist_ok=True)
    store = f"milvus:{folder / 'index.db'}"
    config = IngestConfig(
        input_dir=default_chroma_dir() / "corpora",
        output=folder / "chunks.jsonl",
        format_overrides=(("*", "text"),),
        chunker="structure",
        tokenizer=tokenizer,
        max_tokens=200,
        target_tokens=128,
        min_preferred_tokens=min_preferred,
        store=store,
        retrieval=mode,  # type: ignore[arg-type]
    )
    started = time.perf_counter()
    result = run_ingest(config)
    elapsed = time.perf_counter() - started
    if result.states.get("chunked") != 5:
        raise SystemExit(f"{mode}: expected 5 chunked corpora, got {dict(result.states)}")
    return config.output, store, elapsed


def _replica(store: Any, questions: list[str], vectors: list[Any], k: int) -> list[list[str]]:
    """Chunk ids per question, ranked in process as ``fastrag eval`` ranks (see above)."""
    import numpy as np

    from fastrag.benchmarking.lexical import bm25_scores
    from fastrag.retrieval.fusion import FUSION_DEPTH, Deduplicator, reciprocal_rank_fusion

    # The bench reads the window and vector columns, which no hit carries, directly.
    fields = ["chunk_id", "vector", "window", "text"]
    found = store._client.query(store.collection, filter='chunk_id != ""', output_fields=fields)
    # pymilvus fills its result rows lazily, by position: copy them before sorting.
    rows = sorted(
        ({name: row[name] for name in fields} for row in found), key=lambda r: r["chunk_id"]
    )
    ids = [row["chunk_id"] for row in rows]
    matrix = np.asarray([row["vector"] for row in rows], dtype=np.float32)
    queries = np.asarray(vectors, dtype=np.float32)
    fused = queries @ matrix.T
    sentence_rows = store._client.query(
        f"{store.collection}_sentences",
        filter='chunk_id != ""',
        output_fields=["chunk_id", "vector"],
    )
    owner = {chunk_id: number for number, chunk_id in enumerate(ids)}
    owners = np.asarray([owner[row["chunk_id"]] for row in sentence_rows])
    sentence_matrix = np.asarray([row["vector"] for row in sentence_rows], dtype=np.float32)
    order_s = np.argsort(owners, kind="stable")
    starts = np.r_[0, np.flatnonzero(np.diff(owners[order_s])) + 1]
    best = np.maximum.reduceat(queries @ sentence_matrix[order_s].T, starts, axis=1)
    dense = (2 * fused + best) / 3
    dense_rank = np.argsort(-dense, axis=1, kind="stable")[:, :FUSION_DEPTH].tolist()
    lexical = bm25_scores([row["window"] for row in rows], questions)
    order = np.argsort(-lexical, axis=1, kind="stable")[:, :FUSION_DEPTH]
    lexical_rank = [
        [int(i) for i in row if lexical[number, i] > 0.0] for number, row in enumerate(order)
    ]
    ranked = reciprocal_rank_fusion([dense_rank, lexical_rank], FUSION_DEPTH)
    dedupe = Deduplicator([row["text"] for row in rows])
    return [[ids[i] for _, i in zip(range(k), dedupe.filter(row), strict=False)] for row in ranked]


def _evaluate(
    mode: str, jsonl: Path, store_value: str, vectors: list[Any], k: int, replica: bool
) -> dict[str, Any]:
    corpus = load_chroma()
    chunks = _chunks(jsonl, dict(corpus.documents))
    by_document: dict[str, list[IndexedChunk]] = {}
    for chunk in chunks.values():
        by_document.setdefault(chunk.document, []).append(chunk)
    found: list[list[str]] = []
    started = time.perf_counter()
    with open_store(store_value) as store:
        assert store.retrieval == mode, (store.retrieval, mode)
        for question, vector in zip(corpus.questions, vectors, strict=True):
            if mode == "hybrid":
                hits = store.hybrid_search(vector, question.text, k, tenant="")
            else:
                hits = store.search(vector, k, tenant="")
            found.append([hit.chunk_id for hit in hits])
        searched = time.perf_counter() - started
        copies = (
            _replica(store, [q.text for q in corpus.questions], vectors, k)
            if replica and mode == "hybrid"
            else None
        )

    def score(ranked: list[list[str]]) -> tuple[dict[str, Any], list[QuestionScore]]:
        scores = []
        for question, ids in zip(corpus.questions, ranked, strict=True):
            retrieved = [chunks[chunk_id] for chunk_id in ids]
            wanted = {ref.document for ref in question.references}
            evidence = [c for name in wanted for c in by_document.get(name, [])]
            scores.append(
                score_question(
                    [(ref.document, ref.span) for ref in question.references],
                    [(c.document, c.spans) for c in retrieved],
                    [(c.document, c.spans) for c in evidence],
                )
            )
        overall, per_corpus = aggregate(scores, [q.document for q in corpus.questions])
        summary = {
            "overall": {name: value.as_dict() for name, value in overall.items()},
            "per_corpus": {
                corpus_name: {name: value.as_dict() for name, value in values.items()}
                for corpus_name, values in per_corpus.items()
            },
        }
        return summary, scores

    summary, scores = score(found)
    result = {"mode": mode, "chunks": len(chunks), "search_seconds": round(searched, 1)}
    result.update(summary)
    if copies is not None:
        replica_summary, replica_scores = score(copies)
        result["replica"] = replica_summary
        result["replica_same_top_k"] = sum(a == b for a, b in zip(found, copies, strict=True))
        result["replica_recall_difference"] = [
            round(a.recall - b.recall, 4) for a, b in zip(scores, replica_scores, strict=True)
        ]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--modes", default="dense,hybrid")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--replica", action="store_true")
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--min-preferred", type=int, default=64)
    arguments = parser.parse_args(argv)
    model = SentenceTransformerModel()
    tokenizer = HuggingFaceTokenizer(model.path / "tokenizer.json")  # as fastrag eval counts
    corpus = load_chroma()
    embedder = build_embedder(None, 32)
    vectors = asyncio.run(embedder.aembed_texts([q.text for q in corpus.questions]))
    results = []
    for mode in arguments.modes.split(","):
        if arguments.reuse:
            folder = arguments.out / mode
            jsonl, store, ingest_seconds = (
                folder / "chunks.jsonl",
                f"milvus:{folder / 'index.db'}",
                0.0,
            )
        else:
            jsonl, store, ingest_seconds = _ingest(
                arguments.out, mode, tokenizer, arguments.min_preferred
            )
        result = _evaluate(mode, jsonl, store, vectors, arguments.k, arguments.replica)
        result["ingest_seconds"] = round(ingest_seconds, 1)
        results.append(result)
        overall = result["overall"]
        print(
            f"{mode}: chunks {result['chunks']}, recall {100 * overall['recall']['mean']:.1f} "
            f"± {100 * overall['recall']['std']:.1f}, IoU {100 * overall['iou']['mean']:.2f} "
            f"± {100 * overall['iou']['std']:.2f}, precision "
            f"{100 * overall['precision']['mean']:.2f}, Ω "
            f"{100 * overall['precision_omega']['mean']:.1f}, hit "
            f"{100 * overall['hit']['mean']:.1f} (ingest {ingest_seconds:.0f} s, search "
            f"{result['search_seconds']:.0f} s)",
            flush=True,
        )
        for name, values in result["per_corpus"].items():
            print(
                f"    {name}: {100 * values['recall']['mean']:.1f} / "
                f"{100 * values['iou']['mean']:.1f}",
                flush=True,
            )
        if "replica" in result:
            copy = result["replica"]["overall"]
            print(
                f"  in-process replica (bm25s, our RRF): recall "
                f"{100 * copy['recall']['mean']:.1f}, IoU {100 * copy['iou']['mean']:.2f}; "
                f"same top-{arguments.k} for {result['replica_same_top_k']} of "
                f"{len(result['replica_recall_difference'])} questions",
                flush=True,
            )
            for name, values in result["replica"]["per_corpus"].items():
                print(
                    f"    {name}: {100 * values['recall']['mean']:.1f} / "
                    f"{100 * values['iou']['mean']:.1f}",
                    flush=True,
                )
    (arguments.out / "store_eval.json").write_text(
        json.dumps(results, indent=2) + "\n", encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
