"""The plumbing of the tests' local OpenAI-compatible servers: scripted replies on 127.0.0.1.

A stdlib ``HTTPServer`` in a daemon thread (port 0: any free port), started and
stopped by a fixture. Every POST is read as JSON, recorded, and answered by the next
reply in ``script`` (``default(payload)`` once the script is empty). A reply names an
HTTP status, extra headers, a body to send instead of the normal answer (JSON-able or raw
``bytes``) and a sleep before answering; what a *normal* answer looks like is the one
thing each API's server adds (``normal_body``): a chat completion or a list of
embeddings. Also counted: requests in flight at once (a concurrency bound can be checked)
and the first arrival (a test can cancel its caller mid-request).

Threaded, unlike ``fastrag.benchmarking._local_chat`` (one request at a time), because
the concurrency tests need overlapping requests. The threads are a fixed pool started one
after the other when the server is built, not one per request: on Python 3.11 under
coverage, every new thread installs coverage's trace hook, and two threads doing so at
once make the loser die with "Cannot install a trace function while another trace
function is being installed" (a process-wide guard in CPython, python/cpython#98257) —
which a burst of concurrent requests against a thread-per-request server did.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from queue import SimpleQueue
from socket import socket
from typing import Any, Generic, Protocol, TypeVar


class ScriptedReply(Protocol):
    """What the server does for one request (each server has its own dataclass of it)."""

    status: int
    headers: dict[str, str]
    body: Any
    """Sent instead of the normal answer when not None: JSON-serializable, or ``bytes``."""
    sleep: float
    """Seconds to wait before answering (released early when the server stops)."""


@dataclass
class Request:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    payload: dict[str, Any]


ReplyT = TypeVar("ReplyT", bound=ScriptedReply)
RequestT = TypeVar("RequestT", bound=Request)


class ScriptedServer(Generic[ReplyT, RequestT]):
    """The running server: ``base_url``, the remaining ``script`` and what it saw."""

    def __init__(
        self,
        default: Callable[[dict[str, Any]], ReplyT],
        record: Callable[[str, dict[str, str], dict[str, Any]], RequestT],
    ) -> None:
        self.script: deque[ReplyT] = deque()
        self.default = default
        """The reply to a request once ``script`` is empty (a function of its payload)."""
        self.requests: list[RequestT] = []
        self.in_flight = 0
        self.max_in_flight = 0
        """Most requests the server was answering at one moment (a concurrency check)."""
        self.release = threading.Event()
        self.arrived = threading.Event()
        """Set when the first request has arrived (a test can then cancel its caller)."""
        self._record = record
        self._lock = threading.Lock()
        self._httpd = _PooledHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def normal_body(self, reply: ReplyT, payload: dict[str, Any]) -> object:
        """The JSON body of a successful answer to ``payload``; each API defines it."""
        raise NotImplementedError

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def next_reply(self, payload: dict[str, Any]) -> ReplyT:
        with self._lock:
            if self.script:
                return self.script.popleft()
        return self.default(payload)

    def arrive(self, path: str, headers: dict[str, str], payload: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(self._record(path, headers, payload))
            self.arrived.set()
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def done(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def body_for(self, reply: ReplyT, payload: dict[str, Any]) -> bytes:
        """The bytes sent for ``reply``: its own body, a normal answer, or an error body."""
        if reply.body is not None:
            body = reply.body
        elif reply.status == 200:
            body = self.normal_body(reply, payload)
        else:
            body = {"error": {"type": "server_error", "code": str(reply.status)}}
        return body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")


class _PooledHTTPServer(HTTPServer):
    """An ``HTTPServer`` answering on a fixed pool of threads (see the module docstring)."""

    WORKERS = 16
    """More than any test keeps in flight at once."""

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self._requests: SimpleQueue[tuple[socket, Any] | None] = SimpleQueue()
        for _ in range(self.WORKERS):
            ready = threading.Event()
            threading.Thread(target=self._work, args=(ready,), daemon=True).start()
            ready.wait()  # one thread starting at a time

    def process_request(self, request: Any, client_address: Any) -> None:
        self._requests.put((request, client_address))

    def _work(self, ready: threading.Event) -> None:
        ready.set()
        while (item := self._requests.get()) is not None:
            request, client_address = item
            try:
                self.finish_request(request, client_address)
            except Exception:  # noqa: BLE001 - as ThreadingMixIn: a worker outlives a request
                self.handle_error(request, client_address)
            finally:
                self.shutdown_request(request)

    def server_close(self) -> None:
        super().server_close()
        for _ in range(self.WORKERS):
            self._requests.put(None)


def _handler_for(server: ScriptedServer[Any, Any]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            payload = json.loads(raw) if raw else {}
            server.arrive(self.path, dict(self.headers.items()), payload)
            try:
                self._answer(server.next_reply(payload), payload)
            finally:
                server.done()

        def _answer(self, reply: ScriptedReply, payload: dict[str, Any]) -> None:
            if reply.sleep:
                server.release.wait(reply.sleep)
            data = server.body_for(reply, payload)
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


ServerT = TypeVar("ServerT", bound=ScriptedServer[Any, Any])


def serving(server: ServerT) -> Iterator[ServerT]:
    """Generator body for a fixture: ``server`` started, and stopped afterwards."""
    server.start()
    try:
        yield server
    finally:
        server.stop()
