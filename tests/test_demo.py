"""``make demo`` runs the demo module on the bundled real documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from fastrag.demo import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "documents"


def test_demo_chunks_every_bundled_document(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(EXAMPLES)]) == 0
    output = capsys.readouterr().out
    assert "7 documents" in output
    assert "0 failed" in output


def test_demo_rejects_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nowhere")]) == 2
    assert "not a folder" in capsys.readouterr().err
