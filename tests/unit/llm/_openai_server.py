"""A real HTTP server on 127.0.0.1 speaking the OpenAI embeddings API, for tests.

Stdlib ``ThreadingHTTPServer`` in a thread, started and stopped by a fixture. Each request
takes the next action from ``script`` (then answers normally once the script is empty):
an HTTP status with optional headers and JSON body, a sleep (to exceed a client's
timeout), or a malformed answer. Vectors are a deterministic function of the text (see
``vector_for``), so a test can check which vector went to which chunk.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIMENSION = 8


def vector_for(text: str) -> tuple[float, ...]:
    """The server's "embedding" of ``text``: 8 floats derived from its sha256."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return tuple((byte - 128) / 128.0 for byte in digest[:DIMENSION])


@dataclass
class Action:
    """What the server does for one request."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    """A JSON-serializable body to send instead of the normal answer, or raw ``bytes``."""
    sleep: float = 0.0
    """Seconds to wait before answering (released early when the server stops)."""


@dataclass
class Recorded:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    payload: dict[str, Any]


class OpenAIServer:
    """The running server: its ``base_url``, the remaining ``script`` and what it saw."""

    def __init__(self) -> None:
        self.script: deque[Action] = deque()
        self.requests: list[Recorded] = []
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def batches(self) -> list[int]:
        """How many texts each request carried."""
        return [len(request.payload.get("input", ())) for request in self.requests]

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def next_action(self) -> Action:
        with self._lock:
            return self.script.popleft() if self.script else Action()

    def record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)


def _handler_for(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            payload = json.loads(raw) if raw else {}
            server.record(Recorded(self.path, dict(self.headers.items()), payload))
            action = server.next_action()
            if action.sleep:
                server.release.wait(action.sleep)
            if action.body is not None:
                body = action.body
            elif action.status == 200:
                texts = payload.get("input", [])
                body = {
                    "object": "list",
                    "data": [
                        {"object": "embedding", "index": index, "embedding": list(vector_for(t))}
                        for index, t in enumerate(texts)
                    ],
                    "model": payload.get("model"),
                }
            else:
                body = {"error": {"type": "server_error", "code": str(action.status)}}
            data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
            try:
                self.send_response(action.status)
                for name, value in action.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nothing to answer

        def log_message(self, format: str, *args: Any) -> None:
            """Silence the stdlib's per-request stderr line."""

    return Handler


def running_server() -> Iterator[OpenAIServer]:
    """Generator body for a fixture: a started server, stopped afterwards."""
    server = OpenAIServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
