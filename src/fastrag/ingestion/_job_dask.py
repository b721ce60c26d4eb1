"""``--engine dask``: the same batches as the process pool, run on Dask distributed workers.

The parent discovers files, deals them into the pool's contiguous batches (``batches``)
and submits each as one task doing what a pool worker does (``run_share`` over the
batch, records as JSONL lines), so a batch's ``BatchResult`` cannot depend on the
engine, and the parent's writer sorts: the output is byte-identical to a local run.

* **Backpressure**: at most ``2 × slots`` batches (a slot is one worker thread) are
  submitted at a time; each finished batch is consumed and the next one submitted, so
  the scheduler never holds the whole folder and finished results do not pile up.
* **One plan per worker thread**: building parsers, chunker and tokenizer is costly, so a
  worker keeps the ``Plan`` of the configs it has seen (a few) keyed by a digest of the
  pickled ``IngestConfig``. The key is per thread because the plan holds a SQLite cache
  connection and steps that were never promised to be thread-safe.
* **Secrets**: the config (``pdf_password`` included) travels pickled inside ``_Sealed``,
  whose repr shows only its digest, so Dask's task logs ("Compute Failed …") never
  print it.
* **Failures**: a worker that dies mid-batch is replaced and the batch rerun by Dask
  (``distributed.scheduler.allowed-failures``, default 3); past that, the run stops with
  a ``PipelineError`` naming the batch's files. An error inside a batch is raised as
  it is, as the pool does. Either way the JSONL writer discards the partial output.
* Without ``scheduler``, a ``LocalCluster`` bound to 127.0.0.1 (no dashboard; one
  process of one thread per worker) is started for the run and closed after it.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import pickle
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Final

from fastrag._optional import require
from fastrag.exceptions import ConfigurationError, PipelineError
from fastrag.ingestion._job_config import IngestConfig, Plan, build_plan
from fastrag.ingestion._job_run import DocumentOutcome, run_share
from fastrag.ingestion._job_workers import (
    BatchResult,
    batches,
    largest_first,
    record_lines,
    report_rows,
    section_payloads,
)
from fastrag.models import Document
from fastrag.pipeline import EventRecorder

__all__ = ["IN_FLIGHT_PER_SLOT", "run_dask"]

IN_FLIGHT_PER_SLOT: Final = 2
"""Batches submitted per worker thread: one running, one queued so no worker waits on
the parent; more would only move memory from the parent into the scheduler."""

_CONNECT_TIMEOUT: Final = "30s"
_WORKERS_TIMEOUT: Final = 60.0
"""Seconds to wait for a connected cluster to have at least one worker."""
_PLANS_PER_THREAD: Final = 2
"""Plans a worker thread keeps: a long-lived cluster may serve several configurations."""

_LOCAL: Final = threading.local()

_LOCAL_CLUSTER_CONFIG: Final[dict[str, object]] = {
    # The statistical profiler samples the running thread's stack every 10 ms; on
    # parse-and-chunk work it costs about a tenth of the CPU and nobody reads it here.
    "distributed.worker.profile.enabled": False,
    # Periodic bookkeeping that runs whatever the work, in every worker and in this
    # process (scheduler, nannies): the event-loop health tick (20 ms), the memory
    # monitors (100 ms), the system monitor (500 ms), work stealing and the active memory
    # manager. An idle 2-worker cluster spent ~6.6 % of a core on it, ~1.1 % with these
    # values; on a busy 2-core machine that is CPU the batches wait for. Stealing and
    # the memory manager have nothing to do here: the batches are independent, submitted
    # two per worker thread, and results are consumed (and released) as they finish.
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing": False,
    "distributed.scheduler.active-memory-manager.start": False,
}
"""Dask settings of the ``LocalCluster`` a run starts for itself (never of a cluster
given with ``scheduler``); the nannies hand them to the worker processes they start."""


_SALT: Final = secrets.token_bytes(16)
"""Keys the config digest, so the digest of a config holding a password reveals nothing
(and cannot be checked against a guess) outside this process's runs."""


@dataclass(frozen=True, slots=True)
class _Sealed:
    """A pickled ``IngestConfig`` and its digest; the repr shows the digest only."""

    digest: str
    blob: bytes = field(repr=False)


def _seal(config: IngestConfig) -> _Sealed:
    blob = pickle.dumps(config, protocol=pickle.HIGHEST_PROTOCOL)
    return _Sealed(hashlib.blake2b(blob, key=_SALT, digest_size=16).hexdigest(), blob)


def _plan_for(sealed: _Sealed) -> Plan:
    """This thread's plan for ``sealed``, built on first use (least recently used out)."""
    plans: OrderedDict[str, Plan] | None = getattr(_LOCAL, "plans", None)
    if plans is None:
        plans = _LOCAL.plans = OrderedDict()
    plan = plans.get(sealed.digest)
    if plan is not None:
        plans.move_to_end(sealed.digest)
        return plan
    config = pickle.loads(sealed.blob)  # noqa: S301 - our own bytes, from the parent
    plan = plans[sealed.digest] = build_plan(config)
    while len(plans) > _PLANS_PER_THREAD:
        _, old = plans.popitem(last=False)
        if old.cache is not None:
            old.cache.close()
    return plan


def _run_task(sealed: _Sealed, raws: list[Document]) -> BatchResult:
    """One Dask task: run one batch with this worker thread's plan.

    The same steps as the pool's ``_run_batch``, which reads a per-process global plan
    instead (one thread per pool worker); both build ``BatchResult`` the same way.
    """
    plan = _plan_for(sealed)
    recorder = EventRecorder()
    outcomes = asyncio.run(_collect(plan, raws, recorder))
    return BatchResult(
        tuple(outcome.entry for outcome in outcomes),
        record_lines(outcomes),
        tuple(recorder.events),
        section_payloads(outcomes),
        report_rows(outcomes),
    )


async def _collect(
    plan: Plan, raws: Sequence[Document], recorder: EventRecorder
) -> list[DocumentOutcome]:
    return [outcome async for outcome in run_share(plan, raws, [recorder])]


def _input_reachable(path: str) -> bool:
    """Run on each worker: whether the input folder is there (same path as the parent)."""
    return os.path.isdir(path)


def _slots(client: Any) -> int:
    """Worker threads of the cluster now (one process of one thread per local worker)."""
    return max(1, int(sum(client.nthreads().values())))


def _connect(config: IngestConfig, distributed: ModuleType, stack: ExitStack) -> Any:
    """A client of ``config.scheduler``, or of a loopback ``LocalCluster`` started here."""
    if config.scheduler is None:
        dask = require("dask", extra="dask", feature="--engine dask")
        stack.enter_context(dask.config.set(_LOCAL_CLUSTER_CONFIG))
        cluster = stack.enter_context(
            distributed.LocalCluster(
                host="127.0.0.1",
                dashboard_address=None,
                # The scheduler serves health and metrics routes even without a dashboard,
                # on port 8787 unless told otherwise: a free loopback port avoids a clash
                # (and its warning) with another cluster on this machine.
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                n_workers=config.workers,
                threads_per_worker=1,
                processes=True,
            )
        )
        client = stack.enter_context(distributed.Client(cluster, set_as_default=False))
        client.wait_for_workers(config.workers, timeout=_WORKERS_TIMEOUT)
        return client
    address = config.scheduler
    try:
        client = stack.enter_context(
            distributed.Client(address, timeout=_CONNECT_TIMEOUT, set_as_default=False)
        )
    except (OSError, TimeoutError) as error:
        raise ConfigurationError(
            f"cannot reach the Dask scheduler at {address!r} ({type(error).__name__}); start "
            "one (dask scheduler) and pass the address it prints, or drop --scheduler to run "
            "a local cluster"
        ) from error
    try:
        client.wait_for_workers(1, timeout=_WORKERS_TIMEOUT)
    except (OSError, TimeoutError) as error:
        raise ConfigurationError(
            f"the Dask scheduler at {address!r} has no workers after {_WORKERS_TIMEOUT:.0f} s; "
            f"start some with: dask worker {address}"
        ) from error
    return client


def _check_input(client: Any, config: IngestConfig) -> None:
    """Refuse to start when a worker cannot see the input folder at the parent's path."""
    folder = os.fspath(config.input_dir)
    seen: dict[str, bool] = client.run(_input_reachable, folder)
    blind = sorted(worker for worker, present in seen.items() if not present)
    if blind:
        raise ConfigurationError(
            f"the input folder {folder!r} is not a folder on {len(blind)} Dask worker(s) "
            f"({', '.join(blind[:3])}); every worker reads the files itself, so mount the "
            "folder at the same absolute path on every machine and pass that path"
        )


def _span(batch: Sequence[Document]) -> str:
    first, last = batch[0].source_id, batch[-1].source_id
    return repr(first) if len(batch) == 1 else f"{first!r} … {last!r} ({len(batch)} files)"


def _result(future: Any, batch: Sequence[Document], distributed: ModuleType) -> BatchResult:
    """The batch's result; a worker lost too often becomes an error naming the files."""
    try:
        result: BatchResult = future.result()
    except distributed.KilledWorker as error:
        raise PipelineError(
            f"the Dask workers running the batch {_span(batch)} died repeatedly "
            f"({type(error).__name__}); a file in it may exhaust a worker's memory or crash "
            "its parser: ingest these files with --engine local to find it, or give the "
            "workers more memory"
        ) from error
    except distributed.client.FutureCancelledError as error:
        raise PipelineError(
            f"the Dask cluster dropped the batch {_span(batch)} (the scheduler or client "
            "connection was lost); re-run when the cluster is healthy"
        ) from error
    return result


def run_dask(config: IngestConfig, raws: Sequence[Document]) -> Iterator[BatchResult]:
    """Run ``raws`` on Dask workers; yield each batch's result as it finishes.

    At most ``IN_FLIGHT_PER_SLOT`` batches per worker thread are submitted at once. An
    error in a batch is raised here and the remaining work is cancelled.
    """
    if not raws:
        return
    distributed = require("distributed", extra="dask", feature="--engine dask")
    with ExitStack() as stack:
        client = _connect(config, distributed, stack)
        _check_input(client, config)
        slots = _slots(client)
        work = iter(largest_first(batches(raws, slots, config.batch_size)))
        sealed = _seal(config)
        running: dict[str, tuple[Any, list[Document]]] = {}
        """Submitted, not yet consumed: future and batch by task key."""
        queue = distributed.as_completed(loop=client.loop)

        def submit() -> None:
            batch = next(work, None)
            if batch is not None:
                future = client.submit(_run_task, sealed, batch, pure=False)
                running[future.key] = (future, batch)
                queue.add(future)

        for _ in range(IN_FLIGHT_PER_SLOT * slots):
            submit()
        try:
            for future in queue:
                _, batch = running.pop(future.key)
                result = _result(future, batch, distributed)
                submit()
                yield result
        finally:
            # An error or an abandoned run: stop the rest now rather than when the
            # client closes, so workers are idle before the cluster shuts down.
            queue.clear()
            if running:
                client.cancel([future for future, _ in running.values()])
