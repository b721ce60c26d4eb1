"""``fastrag validate``: exit 0 clean, 1 with problems printed by record, 2 on usage errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fastrag.cli.main import main
from fastrag.tokenization import Utf8ByteTokenizer
from tests.unit.ingestion._ingest_helpers import EXAMPLES, ingest, read_records, write_records


@pytest.fixture(scope="module")
def output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "out.jsonl"
    ingest(EXAMPLES, path, tokenizer=Utf8ByteTokenizer(), max_tokens=800)
    return path


def test_clean_output_exits_zero(output: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(output), "--source-dir", str(EXAMPLES)]) == 0
    assert capsys.readouterr().out.strip().endswith(": OK")


def test_problems_exit_one_and_name_record_rule_and_file(
    output: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = read_records(output)
    records[1]["token_estimate"] += 5
    broken = tmp_path / "broken.jsonl"
    write_records(broken, records)
    argv = ["validate", str(broken), "--source-dir", str(EXAMPLES), "--tokenizer", "utf8-bytes"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert f"record 2 (chunk_id {records[1]['chunk_id']}, source {records[1]['source']})" in out
    assert "token_estimate" in out and "1 problems" in out


def test_usage_errors_exit_two(output: Path) -> None:
    assert main(["validate", str(output)]) == 2
    assert main(["validate", str(output), "--source-dir", ".", "--max-tokens", "0"]) == 2
    assert main([]) == 2


def test_an_unreadable_input_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(tmp_path / "nope.jsonl"), "--source-dir", str(EXAMPLES)]) == 1
    assert "cannot read the JSONL output" in capsys.readouterr().err


def test_the_console_script_runs(output: Path) -> None:
    script = Path(sys.executable).with_name("fastrag")
    result = subprocess.run(
        [str(script), "validate", str(output), "--source-dir", str(EXAMPLES)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
