"""When an OpenAI-compatible client retries a failed attempt, and when it gives up.

Both HTTP clients (``OpenAIChatModel`` and ``OpenAIEmbeddingClient``) follow one rule,
kept here so it is decided, and tested, once:

1. A server that asks to be left alone (``Retry-After``) for longer than
   ``max_retry_after`` seconds ends the call at once — waiting that long inside one
   request would stall a whole ingestion run, and retrying sooner would be rude.
2. A retryable failure (``is_retryable_status``, a dropped connection, a timeout) with
   attempts left waits exactly what the server asked, else the ``Policy.delay_for``
   backoff every fastrag step uses (deterministic jitter keyed by the endpoint URL).
3. Anything else gives up: a refusal at once, a retryable failure once ``retries``
   extra attempts are spent.

The decision is pure (no clock, no I/O): each client classifies its own failure, asks
``RetryRule.decide`` and turns a ``GiveUp`` into its own error type and advice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from fastrag._checks import finite_number
from fastrag.exceptions import ConfigurationError
from fastrag.pipeline import Policy

__all__ = ["RETRYABLE_STATUSES", "GiveUp", "RetryRule", "is_retryable_status", "retry_rule"]

RETRYABLE_STATUSES: Final = frozenset({408, 409, 429, 500, 502, 503, 504})
"""Rate limits, timeouts and server faults; any other 4xx is the request's fault."""

CLIENT_JITTER: Final = 0.1
"""Share by which a backoff wait is widened, so parallel clients do not retry in step."""

GiveUpReason = Literal["refused", "retry_after_too_long", "out_of_attempts"]


def is_retryable_status(status: int) -> bool:
    """Whether an HTTP answer with ``status`` may succeed if sent again (every 5xx does)."""
    return status in RETRYABLE_STATUSES or status >= 500


@dataclass(frozen=True, slots=True)
class GiveUp:
    """The call ends with this attempt's failure; ``suffix`` says why, for the message."""

    reason: GiveUpReason
    attempt: int
    """Attempts made, this one included."""
    max_retry_after: float
    """The client's limit on a server-requested wait (named when that is the reason)."""
    retry_after: float | None = None
    """The wait the server asked for, when that is why (``retry_after_too_long``)."""

    @property
    def attempts(self) -> str:
        """``"1 attempt"`` / ``"3 attempts"``."""
        return f"{self.attempt} attempt" + ("s" if self.attempt > 1 else "")

    @property
    def suffix(self) -> str:
        """What both clients append to the failure's own message, before their advice."""
        if self.reason == "retry_after_too_long":
            return (
                f"; the server asked to retry after {self.retry_after:g} s, longer than "
                f"max_retry_after={self.max_retry_after:g} s ({self.attempts})"
            )
        return f" ({self.attempts})"


@dataclass(frozen=True, slots=True)
class RetryRule:
    """A client's retry settings and the decision they imply; build with ``retry_rule``."""

    policy: Policy
    """``retries``, ``backoff``, ``max_backoff`` and ``jitter`` of the backoff schedule."""
    max_retry_after: float
    """The longest server-requested wait that is honoured rather than given up on."""
    key: str
    """What the jitter is derived from (the endpoint URL): the same call waits the same."""

    def decide(self, attempt: int, *, retryable: bool, retry_after: float | None) -> float | GiveUp:
        """Seconds to wait before attempt ``attempt + 1``, or why to stop after ``attempt``.

        ``attempt`` counts from 1; ``retry_after`` is the parsed ``Retry-After`` of this
        failure (``_http.retry_after_seconds``), None when the server named no wait.
        """
        if retry_after is not None and retry_after > self.max_retry_after:
            return GiveUp("retry_after_too_long", attempt, self.max_retry_after, retry_after)
        if not retryable:
            return GiveUp("refused", attempt, self.max_retry_after)
        if attempt > self.policy.retries:
            return GiveUp("out_of_attempts", attempt, self.max_retry_after)
        if retry_after is not None:
            return retry_after
        return self.policy.delay_for(attempt, self.key)


def retry_rule(
    owner: str,
    *,
    key: str,
    max_retries: int,
    backoff: float,
    max_backoff: float,
    max_retry_after: float,
    jitter: float = CLIENT_JITTER,
) -> RetryRule:
    """A checked ``RetryRule``; a bad setting is a ``ConfigurationError`` naming ``owner``."""
    limit = finite_number("max_retry_after", max_retry_after, positive=False, unit="seconds")
    try:
        policy = Policy(
            retries=max_retries, backoff=backoff, max_backoff=max_backoff, jitter=jitter
        )
    except ConfigurationError as error:
        raise ConfigurationError(f"{owner} retry settings: {error}") from None
    return RetryRule(policy, limit, key)
