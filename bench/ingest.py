"""Whole-process ``fastrag ingest`` throughput as a ratio to the chunking engine alone.

    .venv/bin/python bench/ingest.py [CORPUS_ROOT] [--rounds N] [--workers 1 2]

CORPUS_ROOT defaults to /work/bench-corpus (md, html, rst — named ``*.rst.txt``, read as
rst through ``--format`` — and txt). Each round times, by wall clock:

* the engine alone: ``StructureAwareChunker().split`` over every parsed document, in this
  process (the documents are parsed beforehand, untimed, by the same parsers);
* ``fastrag ingest CORPUS_ROOT -o OUT --workers N`` as a subprocess, for each N: the whole
  job — interpreter start, imports, discovery, hashing, parsing, chunking, the
  independent validation of every chunk set, records, the sorted atomic JSONL, the
  manifest and the report.

Reported: pipeline / engine with 1 worker (target <= 1.20) and the speedup of 2 workers
over 1 (target >= 1.7), medians over the rounds. The machine may be shared: wall-clock
figures then include other load, so compare within one run of this script; the CPU
seconds of each ``fastrag ingest`` (workers included) are printed beside them, and the
load average before the first round.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fastrag.ingestion.sources import discover, raw_documents
from fastrag.ingestion.steps.chunking import StructureAwareChunker
from fastrag.ingestion.steps.parsing import default_parsers
from fastrag.models import Document

FORMATS = ("*.rst.txt=rst",)
"""The rst corpus is Sphinx's ``_sources`` output, named ``.rst.txt``."""


def _overrides() -> list[tuple[str, str]]:
    return [tuple(rule.split("=", 1)) for rule in FORMATS]  # type: ignore[misc]


def _parsed(root: Path) -> list[Document]:
    files = discover(root, format_overrides=_overrides())
    return asyncio.run(default_parsers()(list(raw_documents(files))).run())


def _engine(documents: list[Document]) -> tuple[float, float, int]:
    """Wall and CPU seconds of ``split`` over every document, and the chunk count."""
    chunker = StructureAwareChunker()
    started, cpu = time.perf_counter(), time.process_time()
    chunks = sum(1 for document in documents for _ in chunker.split(document))
    return time.perf_counter() - started, time.process_time() - cpu, chunks


def _step(documents: list[Document]) -> float:
    """CPU seconds of the chunker *step* over the documents: the engine, chunk documents
    and the step's independent validation of every output (``validate_output``)."""
    chunker = StructureAwareChunker()
    cpu = time.process_time()
    asyncio.run(chunker(documents).run())
    return time.process_time() - cpu


def _ingest(root: Path, workers: int) -> tuple[float, float, str]:
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "out.jsonl"
        command = [
            sys.executable, "-m", "fastrag.cli.main", "ingest", str(root), "-o", str(output),
            "--workers", str(workers), *(f"--format={rule}" for rule in FORMATS),
        ]  # fmt: skip
        started, cpu = time.perf_counter(), _children_cpu()
        completed = subprocess.run(command, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
        summary_cpu = _children_cpu() - cpu
        if completed.returncode not in (0, 3):
            raise SystemExit(f"fastrag ingest failed:\n{completed.stderr[-3000:]}")
        summary = completed.stdout.strip().splitlines()[-1]
    return elapsed, summary_cpu, summary


def _children_cpu() -> float:
    """User + system CPU seconds of finished child processes (workers included)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("corpus", nargs="?", default="/work/bench-corpus", type=Path)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    documents = _parsed(args.corpus)
    size = sum(len(document.content.encode("utf-8")) for document in documents)
    print(
        f"{len(documents)} documents, {size / 1e6:.1f} MB parsed text, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    timings: dict[str, list[float]] = {"engine": []}
    for round_number in range(args.rounds):
        engine, engine_cpu, chunks = _engine(documents)
        step_cpu = _step(documents)
        timings["engine"].append(engine)
        timings.setdefault("engine-cpu", []).append(engine_cpu)
        line = (
            f"round {round_number + 1}: engine {engine:.2f}s ({engine_cpu:.2f} CPU-s, "
            f"{chunks} chunks); chunker step with validation {step_cpu:.2f} CPU-s "
            f"({step_cpu / engine_cpu:.2f}x)"
        )
        for workers in args.workers:
            elapsed, cpu, summary = _ingest(args.corpus, workers)
            timings.setdefault(f"workers={workers}", []).append(elapsed)
            timings.setdefault(f"cpu={workers}", []).append(cpu)
            line += (
                f"; ingest --workers {workers} {elapsed:.2f}s ({elapsed / engine:.2f}x, "
                f"{cpu:.2f} CPU-s)"
            )
        print(line)
        print(f"  last summary: {summary}")
    engine = statistics.median(timings["engine"])
    for workers in args.workers:
        elapsed = statistics.median(timings[f"workers={workers}"])
        cpu = statistics.median(timings[f"cpu={workers}"])
        print(
            f"median: ingest --workers {workers}: {elapsed:.2f}s = {elapsed / engine:.2f}x the "
            f"engine alone ({size / 1e6 / elapsed:.2f} MB/s); CPU {cpu:.2f}s = "
            f"{cpu / statistics.median(timings['engine-cpu']):.2f}x the engine's CPU"
        )
    if 1 in args.workers and 2 in args.workers:
        one = statistics.median(timings["workers=1"])
        two = statistics.median(timings["workers=2"])
        print(
            f"pipeline overhead with 1 worker: {one / engine - 1:+.0%} (target <= +20%); "
            f"2 workers: {one / two:.2f}x faster than 1 (target >= 1.7x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
