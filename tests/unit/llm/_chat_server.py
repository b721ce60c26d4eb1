"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat completions API, for tests.

Stdlib ``HTTPServer`` on a pool of threads, started and stopped by a fixture (plumbing in
``tests/_scripted_server.py``). Each request takes the next ``Reply`` from ``script``;
once the script is empty, ``default`` (a function of the request payload) answers. A
reply is a message text, an HTTP status with headers, a raw body, or a sleep before
answering (to outlast a client's timeout). Every request is recorded, so a test can count
what reached the server and inspect what was sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tests._scripted_server import Request, ScriptedServer, serving


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
class Seen(Request):
    """One request as the server saw it."""

    @property
    def user_text(self) -> str:
        """The content of the last message (the chunkers put the task there)."""
        return str(self.payload["messages"][-1]["content"])


class ChatServer(ScriptedServer[Reply, Seen]):
    """The running server: ``base_url``, the remaining ``script`` and what it saw."""

    def __init__(self) -> None:
        super().__init__(lambda payload: Reply(), Seen)

    def normal_body(self, reply: Reply, payload: dict[str, Any]) -> object:
        return {
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


def running_chat_server() -> Iterator[ChatServer]:
    """Generator body for a fixture: a started server, stopped afterwards."""
    yield from serving(ChatServer())
