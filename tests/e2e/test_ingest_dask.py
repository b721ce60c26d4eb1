"""``fastrag ingest --engine dask``: real Dask clusters on 127.0.0.1, output equal to a local run.

Every cluster here is a real ``distributed`` scheduler with worker processes, started by
the code under test (``--engine dask --workers 2``) or by the test itself (``--scheduler``)
and closed after. The reference is the same tree ingested in this process with the local
engine and one worker; equality is of the JSONL bytes and of every manifest row.
"""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.job import FileIngested, IngestConfig, run_ingest
from fastrag.pipeline import Event
from tests._paths import CORPUS
from tests.e2e._trees import build_tree, ingest, manifest_rows, sha256

distributed = pytest.importorskip("distributed")

PASSWORD = "openpassword"
"""The user password of the corpus's RC4 encrypted PDF (see the corpus MANIFEST)."""
OPTIONS = ("--max-tokens", "300", "--metadata", "tenant=acme", "--pdf-password", PASSWORD)
EXTRA = (
    CORPUS / "pdf" / "encrypted_libreoffice-writer-password.pdf",  # needs the password
    CORPUS / "pdf" / "malformed_invalid.pdf",  # failed
    CORPUS / "office" / "word_sample.docx",
)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = build_tree(tmp_path_factory.mktemp("dask") / "docs")
    (root / "more").mkdir()
    for path in EXTRA:
        shutil.copyfile(path, root / "more" / path.name)
    return root


@pytest.fixture(scope="module")
def reference(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The local engine's output with one worker, in this process."""
    output = tmp_path_factory.mktemp("local") / "chunks.jsonl"
    assert ingest(tree, output, *OPTIONS) == 3  # the malformed PDF fails
    return output


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A cluster the test owns, as a user's existing one: loopback only, no dashboard."""
    with distributed.LocalCluster(
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # not a fixed 8787
        n_workers=2,
        threads_per_worker=1,
        processes=True,
    ) as running:
        yield running


def _states(output: Path) -> dict[str, str]:
    return {path: row["state"] for path, row in manifest_rows(output).items()}


def test_the_reference_run_covers_every_state_the_tree_holds(reference: Path) -> None:
    states = _states(reference)
    assert states["more/encrypted_libreoffice-writer-password.pdf"] == "chunked"
    assert states["more/malformed_invalid.pdf"] == "failed"
    assert states["more/word_sample.docx"] == "chunked"
    assert len(states) == 14 and set(states.values()) == {"chunked", "failed"}


def test_cli_local_cluster_of_two_workers_writes_the_local_bytes(
    tree: Path, reference: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "chunks.jsonl"
    assert ingest(tree, output, *OPTIONS, "--engine", "dask", "--workers", "2") == 3
    assert sha256(output) == sha256(reference)
    assert manifest_rows(output) == manifest_rows(reference)
    captured = capfd.readouterr()
    assert PASSWORD not in captured.out + captured.err


def test_cli_scheduler_of_an_existing_cluster_writes_the_local_bytes(
    tree: Path, reference: Path, tmp_path: Path, cluster: Any
) -> None:
    output = tmp_path / "chunks.jsonl"
    address = cluster.scheduler_address
    assert address.startswith("tcp://127.0.0.1:")
    assert ingest(tree, output, *OPTIONS, "--engine", "dask", "--scheduler", address) == 3
    assert sha256(output) == sha256(reference)
    assert manifest_rows(output) == manifest_rows(reference)


def test_a_worker_killed_mid_run_loses_no_file(
    tree: Path, reference: Path, tmp_path: Path, cluster: Any
) -> None:
    """One worker is SIGKILLed once the first file is in: Dask reruns its batches on the
    survivor (and the nanny's replacement), and the output is still the local bytes."""
    with distributed.Client(cluster, set_as_default=False) as client:
        pids: dict[str, int] = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    killed: list[int] = []

    def kill_once(event: Event) -> None:
        if isinstance(event, FileIngested) and not killed:
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    config = IngestConfig(
        tree,
        tmp_path / "chunks.jsonl",
        max_tokens=300,
        metadata={"tenant": "acme"},
        pdf_password=PASSWORD,
        engine="dask",
        scheduler=cluster.scheduler_address,
        batch_size=1,
    )
    result = run_ingest(config, listeners=[kill_once])
    assert killed == [victim]
    # The kill hit work in flight: the scheduler took batches back from the dead worker.
    rerun = [
        key
        for key, start, _, _, stimulus, *_ in cluster.scheduler.transition_log
        if start == "processing" and stimulus.startswith("handle-worker-cleanup")
    ]
    assert rerun, "the killed worker held no batch; the test did not exercise a rerun"
    assert result.states["failed"] == 1
    assert sha256(result.output) == sha256(reference)
    assert manifest_rows(result.output) == manifest_rows(reference)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"engine": "ray"}, "'engine' must be one of"),
        ({"scheduler": "tcp://127.0.0.1:8786"}, "needs engine='dask'"),
        ({"engine": "dask", "scheduler": "127.0.0.1:8786"}, "such as tcp://"),
    ],
)
def test_engine_and_scheduler_are_checked_before_anything_starts(
    tmp_path: Path, changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        IngestConfig(tmp_path / "in", tmp_path / "out.jsonl", **changes)
