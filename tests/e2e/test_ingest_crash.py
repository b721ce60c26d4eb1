"""Crash safety: ``fastrag ingest`` killed with SIGKILL part-way, then re-run, writes exactly
what an uninterrupted run writes — no truncated file, no duplicate record."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e._trees import bench_tree, manifest_rows, sha256

TREE_BYTES = 3_000_000
"""Real Markdown pages, enough for a run of a few seconds so the kill lands mid-way."""


def _command(tree: Path, output: Path) -> list[str]:
    return [sys.executable, "-m", "fastrag.cli.main", "ingest", str(tree), "-o", str(output)]


def _run(tree: Path, output: Path) -> None:
    completed = subprocess.run(_command(tree, output), capture_output=True, check=False)
    assert completed.returncode == 0, completed.stderr.decode()[-2000:]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")
def test_a_killed_run_then_a_rerun_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    tree = bench_tree(tmp_path / "docs", TREE_BYTES)
    reference = tmp_path / "reference" / "out.jsonl"
    _run(tree, reference)

    output = tmp_path / "killed" / "out.jsonl"
    with subprocess.Popen(_command(tree, output), stderr=subprocess.PIPE, text=True) as process:
        assert process.stderr is not None
        progressed = []
        for line in process.stderr:  # plain progress lines: stderr is not a terminal
            progressed.append(line)
            if " chunked " in line:
                break
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    assert progressed, "the run printed no progress line"
    assert not output.exists()  # atomic: no partial JSONL, ever

    _run(tree, output)
    assert sha256(output) == sha256(reference)
    ids = [json.loads(line)["chunk_id"] for line in output.read_text("utf-8").splitlines()]
    assert len(ids) == len(set(ids)) > 0
    assert manifest_rows(output).keys() == manifest_rows(reference).keys()
    assert {row["state"] for row in manifest_rows(output).values()} == {"chunked"}
