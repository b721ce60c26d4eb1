"""``Secret``: a value (an API key) that never shows itself in a repr, a str or a log line.

Keys reach fastrag as plain strings; wrapping them at the boundary means an f-string, a
``repr`` of a step or a traceback's locals can print the wrapper but never the value.
Pickling keeps the value on purpose: a step sent to a Dask worker must still authenticate.
"""

from __future__ import annotations

from typing import Final

from fastrag.exceptions import ConfigurationError

__all__ = ["Secret", "as_secret", "redact"]

_MASK: Final = "***"


class Secret:
    """Hold a secret string; ``reveal()`` is the only way to read it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The secret value, for the one place that must send it (an HTTP header)."""
        return self._value

    def __repr__(self) -> str:
        return f"Secret({_MASK!r})"

    def __str__(self) -> str:
        return _MASK

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return self._value == other._value

    def __hash__(self) -> int:
        return hash((Secret, self._value))

    def __reduce__(self) -> tuple[type[Secret], tuple[str]]:
        return (Secret, (self._value,))


def as_secret(api_key: str | Secret | None) -> Secret | None:
    """A caller's API key wrapped as a ``Secret`` (None stays None); empty keys are refused."""
    if api_key is None or isinstance(api_key, Secret):
        return api_key
    if not isinstance(api_key, str) or not api_key.strip():
        raise ConfigurationError(
            f"api_key must be a nonempty str, a Secret or None (got {type(api_key).__name__})"
        )
    return Secret(api_key)


def redact(message: str, secret: Secret | None) -> str:
    """``message`` with every occurrence of the secret's value replaced by ``***``."""
    if secret is None:
        return message
    return message.replace(secret.reveal(), _MASK)
