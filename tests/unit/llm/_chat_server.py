"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat completions API, for tests.

Stdlib ``ThreadingHTTPServer`` in a thread, started and stopped by a fixture. Each request
takes the next ``Reply`` from ``script``; once the script is empty, ``default`` (a function
of the request payload) answers. A reply is a message text, an HTTP status with headers,
a raw body, or a sleep before answering (to outlast a client's timeout). Every request is
recorded, so a test can count what reached the server and inspect what was sent.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """What the server does for one request."""

    content: str | None = "{}"
    """The assistant message text (``choices[0].message.content``)."""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    """A JSON-serializable body (or raw ``bytes``) sent instead of a normal answer."""
    sleep: float = 0.0
    """Seconds to wait before answering (released early when the server stops)."""
    finish_reason: str = "stop"


@dataclass
class Seen:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    payload: dict[str, Any]

    @property
    def user_text(self) -> str:
        """The content of the last message (the chunkers put the task there)."""
        return str(self.payload["messages"][-1]["content"])


class ChatServer:
    """The running server: ``base_url``, the remaining ``script`` and what it saw."""

    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.default: Callable[[dict[str, Any]], Reply] = lambda payload: Reply()
        self.requests: list[Seen] = []
        self.in_flight = 0
        self.max_in_flight = 0
        """Most requests the server was answering at one moment (a concurrency check)."""
        self.release = threading.Event()
        self.arrived = threading.Event()
        """Set when the first request has arrived (a test can then cancel its caller)."""
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

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def next_reply(self, payload: dict[str, Any]) -> Reply:
        with self._lock:
            if self.script:
                return self.script.popleft()
        return self.default(payload)

    def record(self, seen: Seen) -> None:
        with self._lock:
            self.requests.append(seen)
            self.arrived.set()
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def done(self) -> None:
        with self._lock:
            self.in_flight -= 1


def _handler_for(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            payload = json.loads(raw) if raw else {}
            server.record(Seen(self.path, dict(self.headers.items()), payload))
            try:
                self._answer(server.next_reply(payload), payload)
            finally:
                server.done()

        def _answer(self, reply: Reply, payload: dict[str, Any]) -> None:
            if reply.sleep:
                server.release.wait(reply.sleep)
            if reply.body is not None:
                body = reply.body
            elif reply.status == 200:
                body = {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "model": payload.get("model"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply.content},
                            "finish_reason": reply.finish_reason,
                        }
                    ],
                }
            else:
                body = {"error": {"type": "server_error", "code": str(reply.status)}}
            data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
            try:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout or cancellation test)

        def log_message(self, format: str, *args: Any) -> None:
            """Silence the stdlib's per-request stderr line."""

    return Handler


def running_chat_server() -> Iterator[ChatServer]:
    """Generator body for a fixture: a started server, stopped afterwards."""
    server = ChatServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
