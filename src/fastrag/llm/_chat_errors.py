"""Errors of chat models: transient (worth retrying later) or permanent (fix something).

Model-backed chunkers decide from the class alone whether a failure may fall back to
local splitting (``SemanticChunker(fallback_on_transient_error=True)``) or must raise, so
the distinction is a type, not a string to parse. Messages name the endpoint and the
status, never an API key and never the text that was sent or received.
"""

from __future__ import annotations

from fastrag.exceptions import FastragError

__all__ = ["ChatModelError", "ChatTimeoutError", "TransientChatError"]


class ChatModelError(FastragError):
    """A chat model could not answer: a permanent failure unless a subclass says otherwise.

    Permanent means retrying the same request cannot help (bad key, unknown model,
    refused request, a body that is not an OpenAI chat answer).
    """

    transient: bool = False


class TransientChatError(ChatModelError):
    """Rate limits, server faults, dropped connections: the same request may succeed later."""

    transient = True

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        """Seconds the server asked to wait (``Retry-After``), when it said."""


class ChatTimeoutError(TransientChatError):
    """The endpoint gave no complete answer within the configured timeout."""
