"""HTTP details shared by the OpenAI-compatible clients: endpoints, headers, body limits.

Kept apart from the client so each rule is small and testable on its own: how long a
server asked us to wait, how an endpoint is named in messages (scheme, host and path only:
userinfo and query strings can carry credentials, so a base URL with either is refused up
front), how much of a body is read (a hostile or misconfigured endpoint can stream without
end). Which answers are worth retrying, and for how long, is ``_retry``'s.
"""

from __future__ import annotations

import json
import math
import ssl
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from fastrag.exceptions import ConfigurationError

if TYPE_CHECKING:
    from fastrag.llm.secret import Secret

__all__ = [
    "ResponseTooLarge",
    "check_transport",
    "endpoint_url",
    "error_detail",
    "json_headers",
    "read_capped",
    "refusal_message",
    "retry_after_seconds",
    "status_message",
]

_DETAIL_LIMIT: Final = 80


def endpoint_url(base_url: str, path: str) -> str:
    """``base_url`` + ``path``, refusing URLs that could carry a secret into messages.

    The refusal never quotes the URL, since what makes it refused may be a password.
    """
    if not isinstance(base_url, str) or not base_url:
        raise ConfigurationError(
            f"base_url must be a URL such as 'https://api.openai.com/v1' "
            f"(got {type(base_url).__name__})"
        )
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(
            "base_url must be an http:// or https:// URL with a host, such as "
            "'https://api.openai.com/v1'"
        )
    if parts.username is not None or parts.password is not None:
        raise ConfigurationError(
            "base_url must not contain user:password@; pass the key as api_key (it is "
            "sent as a bearer token and never shown)"
        )
    if parts.query or parts.fragment:
        raise ConfigurationError(
            "base_url must not contain a ?query or #fragment (it would be shown in "
            "identities and errors); pass keys as api_key"
        )
    return base_url.rstrip("/") + path


def retry_after_seconds(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """The wait a server asked for: ``retry-after-ms``, else ``Retry-After`` (seconds or date)."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        value = _number(milliseconds)
        if value is not None:
            return value / 1000.0
    raw = headers.get("retry-after")
    if raw is None:
        return None
    value = _number(raw)
    if value is not None:
        return value
    try:
        moment = parsedate_to_datetime(raw.strip())
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, moment.timestamp() - current)


def _number(raw: str) -> float | None:
    try:
        value = float(raw.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0.0 else None


def error_detail(payload: object) -> str:
    """``type``/``code`` of an OpenAI-style error body — never its free-text ``message``.

    The message may echo the request (document text), so only the short machine-readable
    fields are reported, each capped and stripped to printable ASCII.
    """
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict):
        return ""
    fields = []
    for name in ("type", "code"):
        value = error.get(name)
        if isinstance(value, str | int) and not isinstance(value, bool):
            text = "".join(ch for ch in str(value) if ch.isascii() and ch.isprintable())
            if text:
                fields.append(f"{name}={text[:_DETAIL_LIMIT]}")
    return ", ".join(fields)


def status_message(url: str, status: int, raw: bytes) -> str:
    """``POST <url> answered HTTP <status> (type=…, code=…)``: what a failed call says."""
    try:
        detail = error_detail(json.loads(raw))
    except ValueError:
        detail = ""
    shown = f" ({detail})" if detail else ""
    return f"POST {url} answered HTTP {status}{shown}"


def refusal_message(message: str, status: int, model: str, otherwise: str) -> str:
    """``message`` with what to check for a refusal no retry can fix (401, 403, 404, …).

    ``otherwise`` is the client's own advice for any other status (what an embeddings
    endpoint may refuse differs from what a chat endpoint may).
    """
    hint = {
        401: "check api_key",
        403: "check api_key and the key's access to this model",
        404: f"check base_url (usually ending in /v1) and the model name {model!r}",
    }.get(status, otherwise)
    return f"{message}; {hint}"


def json_headers(api_key: Secret | None) -> dict[str, str]:
    """The headers of a JSON request to an OpenAI-compatible endpoint (bearer key if any)."""
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "User-Agent": "fastrag",
    }
    if api_key is not None:
        headers["Authorization"] = f"Bearer {api_key.reveal()}"
    return headers


class ResponseTooLarge(Exception):  # noqa: N818 - internal signal, never escapes
    """The body passed ``limit`` bytes; each client turns it into its own error."""

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


def check_transport(trust_env: object, verify: object) -> None:
    """The httpx transport options both OpenAI-compatible clients accept, checked once."""
    if not isinstance(trust_env, bool):
        raise ConfigurationError(f"trust_env must be True or False (got {trust_env!r})")
    if not isinstance(verify, bool | ssl.SSLContext):
        raise ConfigurationError(
            f"verify must be True, False or an ssl.SSLContext (got {type(verify).__name__})"
        )
