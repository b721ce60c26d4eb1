"""A real HTTP server on 127.0.0.1 speaking the OpenAI embeddings API, for tests.

Stdlib ``HTTPServer`` on a pool of threads, started and stopped by a fixture (plumbing in
``tests/_scripted_server.py``). Each request takes the next action from ``script`` (then
answers normally once the script is empty): an HTTP status with optional headers and JSON
body, a sleep (to exceed a client's timeout), or a malformed answer. Vectors are a
deterministic function of the text (see ``vector_for``), so a test can check which vector
went to which chunk.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tests._scripted_server import Request, ScriptedServer, serving

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


class OpenAIServer(ScriptedServer[Action, Request]):
    """The running server: its ``base_url``, the remaining ``script`` and what it saw."""

    def __init__(self) -> None:
        super().__init__(lambda payload: Action(), Request)

    def batches(self) -> list[int]:
        """How many texts each request carried."""
        return [len(request.payload.get("input", ())) for request in self.requests]

    def normal_body(self, reply: Action, payload: dict[str, Any]) -> object:
        texts = payload.get("input", [])
        return {
            "object": "list",
            "data": [
                {"object": "embedding", "index": index, "embedding": list(vector_for(text))}
                for index, text in enumerate(texts)
            ],
            "model": payload.get("model"),
        }


def running_server() -> Iterator[OpenAIServer]:
    """Generator body for a fixture: a started server, stopped afterwards."""
    yield from serving(OpenAIServer())
