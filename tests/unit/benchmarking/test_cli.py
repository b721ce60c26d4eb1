"""``fastrag eval`` through ``fastrag.cli.main.main`` on a tiny corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def _run(argv: list[str]) -> int:
    from fastrag.cli import main as cli_main

    return cli_main.main(["eval", *argv])


def test_eval_writes_json_and_plots_and_replays_embeddings(
    tmp_path: Path,
    tiny_corpus: tuple[Path, Path],
    shared_cache: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("matplotlib", reason="plots need fastrag-ai[eval]")
    docs, questions = tiny_corpus
    config = tmp_path / "configs.toml"
    config.write_text(
        '[[configs]]\nname = "recursive 40"\nchunker = "recursive_tokens"\n'
        "chunk_size = 40\nchunk_overlap = 0\n",
        encoding="utf-8",
    )
    out = tmp_path / "result.json"
    plots = tmp_path / "plots"
    argv = [
        "--corpus", str(docs), "--questions", str(questions), "--config", str(config),
        "--grid", "max_tokens=48,96", "--k", "2", "--cache", str(shared_cache),
        "--json", str(out), "--plots", str(plots),
    ]  # fmt: skip
    assert _run(argv) == 0
    captured = capsys.readouterr()
    assert "recursive 40" in captured.out and "structure max_tokens=48" in captured.out
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["protocol"] == {"name": "k", "k": 2, "token_budget": 1000, "spans": "exact"}
    names = [result["config"]["name"] for result in document["results"]]
    assert names == ["recursive 40", "structure max_tokens=48", "structure max_tokens=96"]
    for result in document["results"]:
        assert 0.0 <= result["overall"]["recall"]["mean"] <= 1.0
        assert result["overall"]["recall"]["n"] == 6
    assert sorted(path.name for path in plots.iterdir()) == [
        "quality_vs_cost.png",
        "tokens_01.png",
        "tokens_02.png",
        "tokens_03.png",
    ]
    assert (plots / "quality_vs_cost.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "embedded" in captured.err

    assert _run(argv) == 0
    assert "0 texts embedded" in capsys.readouterr().err


def test_eval_without_data_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(["--cache", str(tmp_path / "c.sqlite")]) == 1
    assert "nothing to evaluate" in capsys.readouterr().err


def test_eval_retrieval_flags_and_a_configuration_table(
    tmp_path: Path,
    tiny_corpus: tuple[Path, Path],
    shared_cache: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    docs, questions = tiny_corpus
    config = tmp_path / "configs.toml"
    config.write_text(
        '[[configs]]\nname = "own dense"\nmax_tokens = 64\nformat = "markdown"\n'
        '[configs.retrieval]\nretrieval = "dense"\n\n'
        '[[configs]]\nname = "flags"\nmax_tokens = 64\nformat = "markdown"\n',
        encoding="utf-8",
    )
    out = tmp_path / "result.json"
    argv = [
        "--corpus", str(docs), "--questions", str(questions), "--config", str(config),
        "--k", "2", "--cache", str(shared_cache), "--json", str(out),
        "--retrieval", "hybrid", "--bm25-over", "window", "--embed", "fuse", "--dedupe",
        "--window-tokens", "40",
    ]  # fmt: skip
    assert _run(argv) == 0
    table = capsys.readouterr().out  # names folded over lines: the label is tested elsewhere
    assert "own dense" in table and "flags [hybrid" in table
    document = json.loads(out.read_text(encoding="utf-8"))
    own, flags = document["results"]
    # A configuration's own table wins over the flags; the others take the flags.
    assert own["retrieval"] == {
        "retrieval": "dense",
        "bm25_over": "chunk",
        "embed": "chunk",
        "dedupe": False,
        "window_tokens": None,
    }
    assert flags["retrieval"] == {
        "retrieval": "hybrid",
        "bm25_over": "window",
        "embed": "fuse",
        "dedupe": True,
        "window_tokens": 40,
    }
    assert "retrieval" not in flags["config"]
    assert own["overall"]["recall"]["mean"] == 1.0
    assert flags["overall"]["recall"]["mean"] == 1.0
    assert flags["cost"]["model_tokens_embedded"] > own["cost"]["model_tokens_embedded"]


def test_eval_rejects_an_unknown_retrieval_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(["--dataset", "chroma", "--retrieval", "sparse"]) == 2
    assert "invalid choice: 'sparse'" in capsys.readouterr().err
