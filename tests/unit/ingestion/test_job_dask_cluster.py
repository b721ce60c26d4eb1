"""The loopback ``LocalCluster`` a ``--engine dask`` run starts runs with its quiet settings.

A real cluster (one worker process, 127.0.0.1) is started by the code under test and
asked, from inside its scheduler, worker and nanny, what actually runs: the periodic
callbacks' intervals, the scheduler's extensions and the workers' profiler setting.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from fastrag.ingestion._job_config import IngestConfig
from fastrag.ingestion._job_dask import _LOCAL_CLUSTER_CONFIG, _connect

distributed = pytest.importorskip("distributed")


def _worker_view(dask_worker: Any) -> dict[str, Any]:
    import dask

    callbacks = dask_worker.periodic_callbacks
    return {
        "tick": callbacks["tick"].callback_time,
        "monitor": callbacks["monitor"].callback_time,
        "memory_monitor": callbacks["memory_monitor"].callback_time,
        "profile": dask.config.get("distributed.worker.profile.enabled"),
    }


def _scheduler_view(dask_scheduler: Any) -> dict[str, Any]:
    return {
        "tick": dask_scheduler.periodic_callbacks["tick"].callback_time,
        "stealing": "stealing" in dask_scheduler.extensions,
        "amm": dask_scheduler.extensions["amm"].running,
    }


def test_the_local_cluster_runs_with_the_quiet_settings(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    config = IngestConfig(tmp_path / "in", tmp_path / "chunks.jsonl", engine="dask")
    assert _LOCAL_CLUSTER_CONFIG["distributed.admin.tick.interval"] == "1s"
    with ExitStack() as stack:
        client = _connect(config, distributed, stack)
        workers = client.run(_worker_view)
        scheduler = client.run_on_scheduler(_scheduler_view)
        nannies = client.run(
            lambda dask_worker: dask_worker.periodic_callbacks["tick"].callback_time,
            nanny=True,
        )
    assert list(workers.values()) == [
        {"tick": 1000, "monitor": 5000, "memory_monitor": 1000, "profile": False}
    ]
    assert scheduler == {"tick": 1000, "stealing": False, "amm": False}
    assert list(nannies.values()) == [1000]
