"""The process pool behind ``workers > 1``: the same graph, a share of the files per task.

Each worker process is started with the spawn method (no inherited locks, file handles or
half-initialized libraries, on every platform) and builds its own parsers, chunker,
tokenizer and cache connection once, from the ``IngestConfig`` (``build_plan``). The
parent deals the accepted files, in sorted order, into small contiguous batches; a worker
runs ``run_share`` over a batch and returns every file's outcome plus the pipeline events
it saw, which the parent forwards to its listeners. Outcomes of one file depend only on
that file and the configuration, and the parent's writer sorts, so the output is
byte-identical for any worker count.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from fastrag.exceptions import PipelineError
from fastrag.ingestion._job_config import IngestConfig, Plan, build_plan
from fastrag.ingestion._job_run import DocumentOutcome, run_share
from fastrag.ingestion.manifest import ManifestEntry
from fastrag.ingestion.records import record_line
from fastrag.models import Document
from fastrag.pipeline import Event, EventRecorder

__all__ = ["BatchResult", "batches", "run_pool"]

_BATCHES_PER_WORKER = 4
"""Batches per worker when the size is automatic: small enough to balance uneven files,
large enough that per-task overhead (pickling, one event loop per batch) stays small."""
_MAX_BATCH = 32

_PLAN: Plan | None = None
"""This worker process's plan, built once by ``_initialize``."""


@dataclass(frozen=True, slots=True)
class BatchResult:
    """The outcomes of one batch and the pipeline events emitted while running it.

    Records travel as their JSONL text (``record_line``), not as pickled dicts: the
    parent is the one serial part of a pooled run, and parsing JSON back is about twice
    as fast as unpickling the same nested dicts. ``outcomes()`` restores them; the
    round trip is exact (fixed key order, JSON-native values), so the parent writes the
    very bytes an in-process run writes.
    """

    entries: tuple[ManifestEntry, ...]
    lines: tuple[str, ...]
    """Per entry, the JSONL text of its records (``""`` for none)."""
    events: tuple[Event, ...]

    def outcomes(self) -> Iterator[DocumentOutcome]:
        """Each file's outcome, records parsed back from their lines."""
        for entry, text in zip(self.entries, self.lines, strict=True):
            records = tuple(json.loads(line) for line in text.splitlines())
            yield DocumentOutcome(entry, records)


def batches(raws: Sequence[Document], workers: int, size: int | None) -> list[list[Document]]:
    """Contiguous batches of ``raws`` in their (sorted) order."""
    if size is None:
        share = -(-len(raws) // (workers * _BATCHES_PER_WORKER))
        size = max(1, min(_MAX_BATCH, share))
    return [list(raws[start : start + size]) for start in range(0, len(raws), size)]


def _initialize(config: IngestConfig) -> None:
    global _PLAN  # one plan per worker process is the point
    _PLAN = build_plan(config)


async def _collect(
    plan: Plan, raws: Sequence[Document], recorder: EventRecorder
) -> list[DocumentOutcome]:
    return [outcome async for outcome in run_share(plan, raws, [recorder])]


def _run_batch(raws: list[Document]) -> BatchResult:
    plan = _PLAN
    if plan is None:
        raise PipelineError(
            "an ingestion worker ran a batch before its initializer built the plan; start "
            "workers through run_pool()"
        )
    recorder = EventRecorder()
    outcomes = asyncio.run(_collect(plan, raws, recorder))
    return BatchResult(
        tuple(outcome.entry for outcome in outcomes),
        tuple("".join(record_line(record) for record in outcome.records) for outcome in outcomes),
        tuple(recorder.events),
    )


def run_pool(config: IngestConfig, raws: Sequence[Document]) -> Iterator[BatchResult]:
    """Run ``raws`` on ``config.workers`` spawned processes; yield batches as they finish.

    An error in a worker (a damaged cache file, a crashed process) is raised here, and
    the batches not yet started are cancelled.
    """
    work = batches(raws, config.workers, config.batch_size)
    if not work:
        return
    pool = ProcessPoolExecutor(
        max_workers=min(config.workers, len(work)),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_initialize,
        initargs=(config,),
    )
    try:
        futures: list[Future[BatchResult]] = [pool.submit(_run_batch, batch) for batch in work]
        for future in as_completed(futures):
            try:
                result = future.result()
            except BrokenProcessPool as error:
                raise PipelineError(
                    f"an ingestion worker process died ({error}); if run_ingest is called "
                    "from a script, guard the call with if __name__ == '__main__': (spawned "
                    "workers re-import the main module), or run with workers=1"
                ) from error
            yield result
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
