"""Chunks embedded per second by the local model at several batch sizes.

    .venv/bin/python bench/embed.py [CORPUS_MD_DIR] [--chunks 500] [--rounds 2]
                                    [--batch-sizes 8 32 128]

CORPUS_MD_DIR defaults to /work/bench-corpus/md (Node.js API docs as Markdown). Files are
read in sorted order and chunked by ``StructureAwareChunker(max_tokens=256)`` under the
model's own tokenizer (all-MiniLM-L6-v2, special tokens counted) until ``--chunks``
chunks are collected — the chunks a real ``embedder(chunker(parser(sources)))`` graph
would embed, every one within the model's 256-token input.

Each round runs ``SentenceTransformerEmbedder(batch_size=B, cache=False)`` over the same
chunks for every B (order rotated per round so no size always runs on a warmer or a
busier machine), after one untimed warm-up batch. Reported per B: the median wall-clock
chunks/s, CPU seconds, and the ratio to batch size 8 measured in the same run — the
machine is shared, so the ratios are the figures to compare, not the absolute rates.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from fastrag.ingestion.steps.chunking import StructureAwareChunker
from fastrag.ingestion.steps.embedding import SentenceTransformerEmbedder
from fastrag.models import Document


def _chunks(corpus: Path, wanted: int, embedder: SentenceTransformerEmbedder) -> list[Document]:
    chunker = StructureAwareChunker(
        tokenizer=embedder.tokenizer, max_tokens=256, target_tokens=200, cache=False
    )
    chunks: list[Document] = []
    for path in sorted(corpus.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        parent = Document(path.name, path.name, text, {"content_format": "markdown"})
        chunks.extend(asyncio.run(chunker([parent]).run()))
        if len(chunks) >= wanted:
            break
    return chunks[:wanted]


def _run(embedder: SentenceTransformerEmbedder, chunks: list[Document]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    embedded = asyncio.run(embedder(chunks).run())
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if len(embedded) != len(chunks):
        sys.exit(f"embedded {len(embedded)} of {len(chunks)} chunks")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=Path("/work/bench-corpus/md"))
    parser.add_argument("--chunks", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[8, 32, 128])
    args = parser.parse_args()

    embedders = {
        size: SentenceTransformerEmbedder(batch_size=size, cache=False) for size in args.batch_sizes
    }
    first = embedders[args.batch_sizes[0]]
    chunks = _chunks(args.corpus, args.chunks, first)
    tokenizer = first.tokenizer
    assert tokenizer is not None
    tokens = [tokenizer.count(first.embedding_text(chunk)) for chunk in chunks]
    print(
        f"{len(chunks)} chunks, tokens/chunk mean {statistics.mean(tokens):.0f} "
        f"max {max(tokens)} (limit {first.max_input_tokens}); "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    for embedder in embedders.values():  # load each model and warm it up, untimed
        asyncio.run(embedder.aembed_texts([chunk.content for chunk in chunks[:8]]))

    walls: dict[int, list[float]] = {size: [] for size in args.batch_sizes}
    cpus: dict[int, list[float]] = {size: [] for size in args.batch_sizes}
    for round_index in range(args.rounds):
        shift = round_index % len(args.batch_sizes)
        order = args.batch_sizes[shift:] + args.batch_sizes[:shift]
        for size in order:
            wall, cpu = _run(embedders[size], chunks)
            walls[size].append(wall)
            cpus[size].append(cpu)
            print(
                f"  round {round_index + 1} batch {size:>4}: {len(chunks) / wall:7.1f} "
                f"chunks/s ({wall:.1f} s wall, {cpu:.1f} s CPU)"
            )
    base = len(chunks) / statistics.median(walls[args.batch_sizes[0]])
    print(f"\n| batch size | chunks/s (median) | CPU s (median) | vs batch {args.batch_sizes[0]} |")
    print("|---|---|---|---|")
    for size in args.batch_sizes:
        rate = len(chunks) / statistics.median(walls[size])
        print(f"| {size} | {rate:.1f} | {statistics.median(cpus[size]):.1f} | {rate / base:.2f}× |")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
