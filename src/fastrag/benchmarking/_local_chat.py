"""A local stand-in for a chat model, so ``semantic_mode = "llm"`` can be evaluated offline.

**It is not a language model.** It speaks the OpenAI chat-completions API on 127.0.0.1
and answers ``ChatBoundaryRefiner``'s request (``chat-boundaries/1``: the paragraph as
``text`` and the sentence starts it may choose as ``allowed``, in the last message) with
proposals computed by a real model: each piece of the paragraph between consecutive
allowed offsets is embedded with the evaluation's sentence-transformers model (MiniLM by
default, through the same kind of SQLite cache), and the allowed offsets with the largest
cosine distance between the pieces before and after them are proposed — the top
``fraction`` of them (at least one), earlier offsets winning ties. That is the signal an
embedding-distance chunker uses, delivered through the refiner's real path (HTTP, strict
JSON validation, fallbacks), so the measured numbers say what refinement with *this*
proposer does, not what a chat LLM would do.

Why here and not under ``bench/``: the ``fastrag eval`` test starts it, and it reuses the
evaluation's embedder and cache classes; it imports nothing heavy until a request comes.
Run it by hand::

    python -m fastrag.benchmarking._local_chat --port 8765 \\
        --cache out/eval-standin-embeddings.sqlite [--fraction 0.5]

It is a test and benchmark tool: it binds to 127.0.0.1 only, reads at most
``MAX_REQUEST_BYTES`` per request, answers one request at a time, and never logs text.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from fastrag.exceptions import ConfigurationError

if TYPE_CHECKING:
    from fastrag.benchmarking._embedding import TextEmbedder, Vectors

__all__ = ["MAX_REQUEST_BYTES", "LocalChatServer", "main", "propose_by_distance"]

MAX_REQUEST_BYTES: Final = 4 << 20
"""Largest request body read; the refiner's ``max_input_chars`` keeps real ones far below."""

Embed = Callable[[Sequence[str]], "Vectors"]
Proposer = Callable[[str, Sequence[int]], list[int]]
"""``(text, allowed) -> chosen offsets`` (a subset of ``allowed``, increasing)."""


def propose_by_distance(
    text: str, allowed: Sequence[int], embed: Embed, fraction: float = 0.5
) -> list[int]:
    """The allowed offsets after which the embedded pieces differ most.

    Piece ``i`` is ``text[cut_i:cut_{i+1}]`` with cuts ``0, *allowed, len(text)``; offset
    ``allowed[i]`` scores the cosine distance between pieces ``i`` and ``i + 1``. The top
    ``ceil(fraction * len(allowed))`` offsets (at least one) are returned in order.
    """
    if not allowed:
        return []
    cuts = [0, *allowed, len(text)]
    pieces = [text[low:high] for low, high in itertools.pairwise(cuts)]
    vectors = np.asarray(embed(pieces), dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0] = 1.0
    unit = vectors / norms[:, None]
    distances = 1.0 - np.sum(unit[:-1] * unit[1:], axis=1)
    keep = max(1, math.ceil(fraction * len(allowed)))
    order = sorted(range(len(allowed)), key=lambda i: (-float(distances[i]), i))
    return sorted(allowed[i] for i in order[:keep])


class LocalChatServer:
    """An OpenAI-compatible ``/chat/completions`` endpoint on 127.0.0.1 (port 0: any free).

    ``proposer`` answers each request; ``embedding_proposer`` builds the real one. The
    server counts ``requests`` and the requests that carried an ``Authorization`` header
    (``authorized``), never storing a header or a text.
    """

    def __init__(self, proposer: Proposer, *, port: int = 0) -> None:
        self.proposer = proposer
        self.requests = 0
        self.authorized = 0
        self.failures = 0
        self._httpd = HTTPServer(("127.0.0.1", port), _handler_for(self))
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``: what ``OpenAIChatModel(base_url=...)`` takes."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> LocalChatServer:
        """Serve in a background thread."""
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve on this thread until interrupted."""
        self._httpd.serve_forever()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._thread.is_alive():
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()

    def answer(self, payload: object) -> str:
        """The assistant text for a request payload (``ValueError`` if it is not ours)."""
        if not isinstance(payload, dict) or not isinstance(payload.get("messages"), list):
            raise ValueError("expected a chat completions request with 'messages'")
        messages = payload["messages"]
        if not messages or not isinstance(messages[-1], dict):
            raise ValueError("expected at least one message")
        task = json.loads(str(messages[-1].get("content", "")))
        if not isinstance(task, dict):
            raise ValueError("the last message must be the refiner's JSON task")
        text, allowed = task.get("text"), task.get("allowed")
        if not isinstance(text, str) or not isinstance(allowed, list):
            raise ValueError("the task needs 'text' (a string) and 'allowed' (a list)")
        if not all(type(value) is int and 0 < value < len(text) for value in allowed):
            raise ValueError("'allowed' must hold offsets strictly inside 'text'")
        chosen = self.proposer(text, sorted(set(allowed)))
        return json.dumps({"boundaries": chosen})


def embedding_proposer(
    embedder: TextEmbedder, *, cache: Path | None = None, fraction: float = 0.5
) -> Proposer:
    """``propose_by_distance`` with ``embedder`` behind an optional SQLite cache.

    The cache is opened on the first request, on the serving thread (an SQLite
    connection belongs to the thread that made it).
    """
    from fastrag.benchmarking._embedding import CachedEmbedder, EmbeddingCache

    if not 0 < fraction <= 1:
        raise ConfigurationError(
            f"fraction is the share of allowed offsets to propose, in (0, 1] (got {fraction!r})"
        )
    state: dict[str, CachedEmbedder] = {}

    def propose(text: str, allowed: Sequence[int]) -> list[int]:
        if "embedder" not in state:
            store = EmbeddingCache(cache) if cache is not None else None
            state["embedder"] = CachedEmbedder(embedder, store)
        return propose_by_distance(text, allowed, state["embedder"].embed, fraction)

    return propose


def _handler_for(server: LocalChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            server.requests += 1
            server.authorized += "Authorization" in self.headers
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(
                    404, {"error": {"type": "not_found", "message": "POST /v1/chat/completions"}}
                )
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_REQUEST_BYTES:
                self._send(413, {"error": {"type": "too_large", "message": "request too large"}})
                return
            try:
                payload: Any = json.loads(self.rfile.read(length) or b"{}")
                content = server.answer(payload)
            except ValueError as error:  # JSONDecodeError is one
                server.failures += 1
                self._send(400, {"error": {"type": "invalid_request", "message": str(error)}})
                return
            self._send(
                200,
                {
                    "id": f"chatcmpl-standin-{server.requests}",
                    "object": "chat.completion",
                    "model": payload.get("model"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                },
            )

        def _send(self, status: int, body: object) -> None:
            data = json.dumps(body).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout); nothing to tell it

        def log_message(self, format: str, *args: Any) -> None:
            """Silence the stdlib's per-request stderr line."""

    return Handler


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the embedding stand-in until interrupted."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from fastrag.benchmarking._embedding import SentenceTransformerEmbedder, default_model_dir

    parser = argparse.ArgumentParser(prog="python -m fastrag.benchmarking._local_chat")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--model", type=Path, default=None, help="sentence-transformers dir")
    parser.add_argument("--cache", type=Path, default=None, help="SQLite embedding cache")
    parser.add_argument("--fraction", type=float, default=0.5, help="share of offsets to propose")
    arguments = parser.parse_args(argv)
    model = SentenceTransformerEmbedder(arguments.model or default_model_dir())
    proposer = embedding_proposer(model, cache=arguments.cache, fraction=arguments.fraction)
    server = LocalChatServer(proposer, port=arguments.port)
    print(f"local chat stand-in (embedding distances, not an LLM) at {server.base_url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
