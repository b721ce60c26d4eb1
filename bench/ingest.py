"""Whole-process ``fastrag ingest`` throughput as a ratio to the chunking engine alone.

    .venv/bin/python bench/ingest.py [CORPUS_ROOT] [--rounds N] [--workers 1 2]
                                     [--engine local|dask] [--ingest-only]

CORPUS_ROOT defaults to /work/bench-corpus (md, html, rst — named ``*.rst.txt``, read as
rst through ``--format`` — and txt). Each round times, by wall clock:

* the engine alone: ``StructureAwareChunker().split`` over every parsed document, in this
  process (the documents are parsed beforehand, untimed, by the same parsers);
* ``fastrag ingest CORPUS_ROOT -o OUT --workers N [--engine dask]`` as a subprocess, for
  each N: the whole job — interpreter start, imports, discovery, hashing, parsing,
  chunking, the independent validation of every chunk set, records, the sorted atomic
  JSONL, the manifest and the report. With ``--engine dask`` the job starts a Dask
  ``LocalCluster`` of N worker processes on 127.0.0.1 and closes it; that start and stop
  are part of the timed job, as they are of a user's. The JSONL of every run is hashed
  and must be the same bytes for every N and engine (checked; the script fails if not).

``--ingest-only`` skips the engine-alone figures (and the untimed parse they need), for
a quick workers comparison on a loaded machine.

Reported: pipeline / engine with 1 worker (target <= 1.20) and the speedup of 2 workers
over 1 (target >= 1.7), medians over the rounds. The machine may be shared: wall-clock
figures then include other load, so compare within one run of this script; the CPU
seconds of each ``fastrag ingest`` (workers included) are printed beside them, and the
load average before the first round.

With ``psutil`` (installed with the ``dask`` extra) each run's process tree is sampled
every 0.1 s: CPU seconds of the parent (for Dask: client, scheduler and nannies) and of
each worker process, and from them the *ideal* speedup of 2 workers over 1 — each run's
CPU spread perfectly over the machine's cores, but never faster than its busiest
process — which other load on a shared machine does not disturb the way it disturbs
wall-clock ratios. Sampling misses at most 0.1 s of each process's last CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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


@dataclass
class _Tree:
    """CPU seconds per process of one run's process tree, sampled while it runs."""

    parent: float = 0.0
    workers: dict[int, float] = field(default_factory=dict)
    other: dict[int, float] = field(default_factory=dict)

    def ideal(self, cores: int) -> float:
        """Seconds the run needs at best: its CPU over the cores, or its busiest process."""
        every = [self.parent, *self.workers.values(), *self.other.values()]
        return max(max(every), sum(every) / cores)

    def describe(self) -> str:
        workers = " + ".join(f"{cpu:.2f}" for cpu in sorted(self.workers.values()))
        return f"parent {self.parent:.2f}, workers {workers or '-'} CPU-s"


def _sample(pid: int, tree: _Tree, done: threading.Event) -> None:
    """Fill ``tree`` with the CPU seconds of ``pid`` and its descendants until ``done``."""
    import psutil  # type: ignore[import-untyped]  # optional: comes with the dask extra

    try:
        top = psutil.Process(pid)
    except psutil.Error:
        return
    kinds: dict[int, str] = {}
    while not done.wait(0.1):
        try:
            processes = [top, *top.children(recursive=True)]
        except psutil.Error:
            continue
        for process in processes:
            try:
                times = process.cpu_times()
                if process.pid not in kinds:
                    kinds[process.pid] = _kind(process, pid)
            except psutil.Error:
                continue
            cpu = times.user + times.system
            kind = kinds[process.pid]
            if kind == "parent":
                tree.parent = cpu
            else:
                (tree.workers if kind == "worker" else tree.other)[process.pid] = cpu


def _kind(process: Any, parent: int) -> str:
    if process.pid == parent:
        return "parent"
    command = " ".join(process.cmdline())
    return "other" if "resource_tracker" in command else "worker"


def _ingest(root: Path, workers: int, engine: str) -> tuple[float, float, str, str, _Tree | None]:
    """Wall and CPU seconds of one ``fastrag ingest``, its summary line, its JSONL's sha256
    and, with psutil, the CPU seconds of each of its processes."""
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "out.jsonl"
        command = [
            sys.executable, "-m", "fastrag.cli.main", "ingest", str(root), "-o", str(output),
            "--workers", str(workers), "--engine", engine,
            *(f"--format={rule}" for rule in FORMATS),
        ]  # fmt: skip
        started, cpu = time.perf_counter(), _children_cpu()
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        tree, done, sampler = _Tree(), threading.Event(), None
        if _HAS_PSUTIL:
            sampler = threading.Thread(target=_sample, args=(process.pid, tree, done))
            sampler.start()
        stdout, stderr = process.communicate()
        elapsed = time.perf_counter() - started
        done.set()
        if sampler is not None:
            sampler.join()
        summary_cpu = _children_cpu() - cpu
        if process.returncode not in (0, 3):
            raise SystemExit(f"fastrag ingest failed:\n{stderr[-3000:]}")
        summary = stdout.strip().splitlines()[-1]
        digest = hashlib.sha256(output.read_bytes()).hexdigest()
    return elapsed, summary_cpu, summary, digest, tree if sampler is not None else None


def _has_psutil() -> bool:
    try:
        import psutil  # noqa: F401
    except ImportError:
        return False
    return True


_HAS_PSUTIL = _has_psutil()


def _children_cpu() -> float:
    """User + system CPU seconds of finished child processes (workers included)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("corpus", nargs="?", default="/work/bench-corpus", type=Path)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--engine", choices=("local", "dask"), default="local")
    parser.add_argument("--ingest-only", action="store_true")
    args = parser.parse_args()
    if args.ingest_only:
        print(f"{os.cpu_count()} CPUs, load average {_load()}")
    else:
        documents = _parsed(args.corpus)
        size = sum(len(document.content.encode("utf-8")) for document in documents)
        print(
            f"{len(documents)} documents, {size / 1e6:.1f} MB parsed text, {os.cpu_count()} "
            f"CPUs, load average {_load()}"
        )
    timings: dict[str, list[float]] = {"engine": []}
    cores = os.cpu_count() or 1
    digests: set[str] = set()
    for round_number in range(args.rounds):
        line = f"round {round_number + 1}:"
        if not args.ingest_only:
            engine, engine_cpu, chunks = _engine(documents)
            step_cpu = _step(documents)
            timings["engine"].append(engine)
            timings.setdefault("engine-cpu", []).append(engine_cpu)
            line += (
                f" engine {engine:.2f}s ({engine_cpu:.2f} CPU-s, {chunks} chunks); chunker "
                f"step with validation {step_cpu:.2f} CPU-s ({step_cpu / engine_cpu:.2f}x);"
            )
        for workers in args.workers:
            elapsed, cpu, summary, digest, tree = _ingest(args.corpus, workers, args.engine)
            digests.add(digest)
            timings.setdefault(f"workers={workers}", []).append(elapsed)
            timings.setdefault(f"cpu={workers}", []).append(cpu)
            processes = ""
            if tree is not None:
                timings.setdefault(f"ideal={workers}", []).append(tree.ideal(cores))
                processes = f": {tree.describe()}"
            line += (
                f" ingest --engine {args.engine} --workers {workers} {elapsed:.2f}s "
                f"({cpu:.2f} CPU-s{processes}; load {_load()});"
            )
        print(line.rstrip(";"))
        print(f"  last summary: {summary}")
    if len(digests) != 1:
        raise SystemExit(f"the runs wrote different JSONL bytes: {sorted(digests)}")
    print(f"every run wrote the same JSONL bytes (sha256 {digests.pop()[:16]}…)")
    for workers in args.workers:
        elapsed = statistics.median(timings[f"workers={workers}"])
        cpu = statistics.median(timings[f"cpu={workers}"])
        line = f"median: ingest --engine {args.engine} --workers {workers}: {elapsed:.2f}s"
        if not args.ingest_only:
            engine = statistics.median(timings["engine"])
            line += (
                f" = {elapsed / engine:.2f}x the engine alone ({size / 1e6 / elapsed:.2f} "
                f"MB/s); CPU {cpu:.2f}s = "
                f"{cpu / statistics.median(timings['engine-cpu']):.2f}x the engine's CPU"
            )
        print(line)
    if 1 in args.workers and 2 in args.workers:
        one = statistics.median(timings["workers=1"])
        two = statistics.median(timings["workers=2"])
        line = f"--engine {args.engine}: 2 workers {one / two:.2f}x faster than 1 (target >= 1.7x)"
        if "ideal=1" in timings and "ideal=2" in timings:
            ideal = statistics.median(timings["ideal=1"]) / statistics.median(timings["ideal=2"])
            line += f"; {ideal:.2f}x ideal from the CPU seconds of each process on {cores} cores"
        if not args.ingest_only:
            overhead = one / statistics.median(timings["engine"]) - 1
            line = f"pipeline overhead with 1 worker: {overhead:+.0%} (target <= +20%); " + line
        print(line)
    return 0


def _load() -> str:
    return "/".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
