"""``fastrag ingest --semantic llm`` against a real chat server on 127.0.0.1, and
``--chunker embedding-semantic`` with the real local MiniLM embedder.

The server (``tests/unit/llm/_chat_server.py``) answers every proposal request with the
first sentence start it was offered, so the model's cuts differ from the heuristic's. The
run must succeed, send only prose (no code fences, no RST literal blocks), keep the API
key (given through ``$FASTRAG_LLM_API_KEY``) out of everything it writes or prints, and
still honour the token budget (``fastrag validate`` re-checks every record).
"""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fastrag.cli.main import main
from tests.e2e._trees import EXAMPLES, ingest, parsed_text, records
from tests.unit.llm._chat_server import ChatServer, Reply, running_chat_server

KEY = "sk-e2e-do-not-leak-8c1f"
MAX_TOKENS = 80
"""Small enough that many paragraphs of the fixtures exceed the target (53 tokens), so
they are offered to the model."""
LLM_DOCUMENTS = ("wiki.md", "mixed.md", "node-async_context.md", "python-tutorial-controlflow.rst")


def _first_sentence_start(payload: dict[str, Any]) -> Reply:
    """A valid proposal: the first allowed offset (a sentence start the engine offered)."""
    task = json.loads(payload["messages"][-1]["content"])
    return Reply(json.dumps({"boundaries": task["allowed"][:1]}))


@pytest.fixture
def server() -> Iterator[ChatServer]:
    for running in running_chat_server():
        running.default = _first_sentence_start
        yield running


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for name in LLM_DOCUMENTS:
        shutil.copyfile(EXAMPLES / name, root / name)
    return root


def _llm_options(server: ChatServer, *extra: str) -> tuple[str, ...]:
    return (
        "--max-tokens",
        str(MAX_TOKENS),
        "--semantic",
        "llm",
        "--llm-base-url",
        server.base_url,
        "--llm-model",
        "m",
        "--report",
        *extra,
    )


def test_semantic_llm_ingests_with_model_cuts_and_never_leaks_the_key(
    server: ChatServer,
    tree: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FASTRAG_LLM_API_KEY", KEY)
    output, report = tmp_path / "llm.jsonl", tmp_path / "llm.report.json"
    assert ingest(tree, output, *_llm_options(server, str(report))) == 0
    printed = capsys.readouterr()

    assert len(server.requests) >= 3
    for seen in server.requests:
        assert seen.path == "/v1/chat/completions"
        assert seen.payload["model"] == "m"
        assert seen.headers["Authorization"] == f"Bearer {KEY}"
        sent = json.loads(seen.user_text)["text"]
        assert "```" not in sent and "~~~" not in sent
        assert "::\n" not in sent  # no RST literal block introducer
    written = [output, report, output.with_name(output.name + ".manifest.sqlite")]
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path.name
    assert KEY not in printed.out and KEY not in printed.err

    llm_records = records(output)
    assert {record["source"] for record in llm_records} == set(LLM_DOCUMENTS)
    assert main(["validate", str(output), "--source-dir", str(tree)]) == 0

    heuristic = tmp_path / "heuristic.jsonl"
    assert ingest(tree, heuristic, "--max-tokens", str(MAX_TOKENS)) == 0
    plain_records = records(heuristic)
    # The refiner's identity (endpoint and model) is in the chunker's config hash, so the
    # ingestion version differs; and the model's first-sentence cuts move boundaries.
    assert {r["metadata"]["ingestion_version"] for r in llm_records}.isdisjoint(
        {r["metadata"]["ingestion_version"] for r in plain_records}
    )
    spans = {(r["source"], r["char_start"], r["char_end"]) for r in llm_records}
    assert spans != {(r["source"], r["char_start"], r["char_end"]) for r in plain_records}


def test_semantic_llm_model_name_changes_the_ingestion_version(
    server: ChatServer, tree: Path, tmp_path: Path
) -> None:
    for name in LLM_DOCUMENTS[1:]:
        (tree / name).unlink()
    versions = []
    for model in ("m", "other"):
        output = tmp_path / f"{model}.jsonl"
        options = list(_llm_options(server, str(tmp_path / f"{model}.report.json")))
        options[options.index("m")] = model
        assert ingest(tree, output, *options) == 0
        versions.append({record["metadata"]["ingestion_version"] for record in records(output)})
    assert len(versions[0]) == 1 and versions[0] != versions[1]


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (("--semantic", "llm", "--llm-model", "m"), "--llm-base-url"),
        (("--semantic", "llm", "--llm-base-url", "http://127.0.0.1:9/v1"), "--llm-model"),
        (
            ("--semantic", "llm", "--llm-base-url", "ftp://x/v1", "--llm-model", "m"),
            "(--llm-base-url, --llm-model): base_url must be an http:// or https:// URL",
        ),
        (("--llm-model", "m"), "--semantic llm"),
        (("--chunker", "recursive", "--semantic", "llm"), "--chunker structure"),
    ],
)
def test_llm_options_are_checked_and_errors_omit_the_key(
    options: tuple[str, ...],
    named: str,
    tree: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FASTRAG_LLM_API_KEY", KEY)
    output = tmp_path / "refused.jsonl"
    assert ingest(tree, output, "--llm-api-key", KEY, *options) == 1
    err = capsys.readouterr().err
    assert named in err and KEY not in err
    assert not output.exists()


def test_embedding_semantic_records_are_exact_source_slices(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    source = root / "mixed.md"
    shutil.copyfile(EXAMPLES / "mixed.md", source)
    output = tmp_path / "semantic.jsonl"
    assert ingest(root, output, "--chunker", "embedding-semantic") == 0

    content = parsed_text(source)
    chunks = sorted(records(output), key=lambda record: record["char_start"])
    assert len(chunks) >= 2
    for record in chunks:
        assert record["text"] == content[record["char_start"] : record["char_end"]]
    # The chunks tile the document: each starts where the previous ended.
    assert chunks[0]["char_start"] == 0 and chunks[-1]["char_end"] == len(content)
    for before, after in itertools.pairwise(chunks):
        assert before["char_end"] == after["char_start"]
