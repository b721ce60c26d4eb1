"""Reading an OpenAI chat answer: a capped body, then exactly one message's text.

Kept apart from the client so each rule is testable alone. The body cap exists because a
hostile or misconfigured endpoint can stream without end; the parser accepts only the
documented shape (``choices[0].message.content`` as a string) and treats a
``finish_reason`` of ``"length"`` as a failure: a reply cut at the output-token limit is
not the answer that was asked for (a half JSON object, a half grouping).
"""

from __future__ import annotations

import json
from typing import Any

from fastrag.llm._chat_errors import ChatModelError

__all__ = ["ResponseTooLarge", "message_text", "read_capped"]


class ResponseTooLarge(Exception):  # noqa: N818 - internal signal, never escapes
    """The body passed ``limit`` bytes; the client turns it into a ``ChatModelError``."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


async def read_capped(response: Any, limit: int) -> bytes:
    """The response body, refusing more than ``limit`` bytes (declared or streamed)."""
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ResponseTooLarge(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise ResponseTooLarge(limit)
        chunks.append(chunk)
    return b"".join(chunks)


def message_text(raw: bytes, *, where: str, max_output_tokens: int) -> str:
    """``choices[0].message.content`` of a chat completion body, or a ``ChatModelError``."""
    try:
        payload = json.loads(raw)
    except ValueError:
        raise ChatModelError(f"{where} answered with a body that is not JSON") from None
    choices = payload.get("choices") if isinstance(payload, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ChatModelError(
            f"{where} answered JSON without a 'choices' list; is base_url an "
            f"OpenAI-compatible chat endpoint (usually ending in /v1)?"
        )
    choice = choices[0]
    message = choice.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise ChatModelError(
            f"{where} answered without a text 'choices[0].message.content' (a refusal or a "
            f"tool call?); use a model that answers in plain text"
        )
    if choice.get("finish_reason") == "length":
        raise ChatModelError(
            f"{where} stopped its answer at max_output_tokens={max_output_tokens}; raise "
            f"max_output_tokens or send less text per call"
        )
    return content
