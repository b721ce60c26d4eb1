"""Reading an OpenAI chat answer: exactly one message's text.

Kept apart from the client so each rule is testable alone (the body it parses was read
under ``_http.read_capped``'s cap). The parser accepts only the documented shape
(``choices[0].message.content`` as a string) and treats a ``finish_reason`` of
``"length"`` as a failure: a reply cut at the output-token limit is not the answer that
was asked for (a half JSON object, a half grouping).
"""

from __future__ import annotations

import json

from fastrag.llm._chat_errors import ChatModelError

__all__ = ["message_text"]


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
