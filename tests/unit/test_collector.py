"""fastrag's own processes raise the collector's young threshold; the library never does."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from fastrag import _collector
from fastrag.cli import main as cli_main
from fastrag.ingestion.steps.chunking import StructureAwareChunker, Utf8ByteTokenizer
from fastrag.models import Document


@pytest.fixture(autouse=True)
def _restore_collector() -> Iterator[None]:
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)
    gc.unfreeze()


def test_the_young_threshold_is_raised_and_the_others_kept() -> None:
    gc.set_threshold(700, 11, 12)
    _collector.tune_for_batch_work()
    assert gc.get_threshold() == (_collector.YOUNG_THRESHOLD, 11, 12)
    gc.set_threshold(50_000, 10, 10)
    _collector.tune_for_batch_work()
    assert gc.get_threshold() == (50_000, 10, 10)  # never lowered


def test_a_collector_switched_off_stays_off() -> None:
    gc.set_threshold(0)
    _collector.tune_for_batch_work()
    assert gc.get_threshold()[0] == 0


def test_freeze_moves_start_up_objects_out_of_collections() -> None:
    gc.unfreeze()
    _collector.tune_for_batch_work(freeze=True)
    assert gc.get_freeze_count() > 0


def test_the_library_leaves_the_collector_alone() -> None:
    gc.set_threshold(700, 10, 10)
    chunker = StructureAwareChunker(tokenizer=Utf8ByteTokenizer(), cache=False)
    list(chunker.split(Document("d", "s", "# T\n\nSome text.\n", {"content_format": "markdown"})))
    assert gc.get_threshold() == (700, 10, 10)


def test_the_command_tunes_the_collector_before_it_runs(tmp_path: Path) -> None:
    gc.set_threshold(700, 10, 10)
    assert cli_main.main(["validate", "--no-such-option"]) == 2  # usage error: nothing ran
    assert gc.get_threshold() == (700, 10, 10)
    cli_main.main(["validate", str(tmp_path / "missing.jsonl"), "--source-dir", str(tmp_path)])
    assert gc.get_threshold() == (_collector.YOUNG_THRESHOLD, 10, 10)
