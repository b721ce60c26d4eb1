"""``Policy``: how a step treats each item — retries, backoff, timeout, concurrency, failure.

A policy remembers which fields were set explicitly. That is what lets a step declare only
``Policy(timeout=5)`` and still inherit ``retries`` and ``concurrency`` from its pipeline
(or enclosing router): ``step_policy.overlay(inherited)`` keeps the step's explicit fields
and takes everything else from ``inherited``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from fastrag.exceptions import ConfigurationError
from fastrag.pipeline.hashing import sha256_parts

__all__ = ["OnFailure", "Policy"]

OnFailure = Literal["raise", "skip"]

_ON_FAILURE: frozenset[str] = frozenset({"raise", "skip"})
_UNSET: Any = object()

_DEFAULTS: dict[str, Any] = {
    "retries": 0,
    "backoff": 0.1,
    "backoff_factor": 2.0,
    "max_backoff": 30.0,
    "jitter": 0.0,
    "timeout": None,
    "concurrency": 1,
    "window": 64,
    "on_failure": "raise",
    "retry_on": (Exception,),
}


@dataclass(frozen=True, slots=True, init=False)
class Policy:
    """Per-item execution rules for a step; every argument is keyword-only and optional.

    ``retries`` extra attempts after the first; the n-th retry waits
    ``min(backoff * backoff_factor ** (n - 1), max_backoff)`` seconds, widened by at most
    ``jitter`` (a fraction) derived from the item id and attempt number — deterministic, so
    a rerun waits exactly as long. ``timeout`` bounds one attempt in seconds (enforced at
    ``await`` points: a synchronous ``split`` that never awaits cannot be interrupted).
    ``concurrency`` items of one step run at once; ``window`` items are read ahead and
    looked up in the cache in one batch. ``on_failure="raise"`` re-raises the item's error
    after reporting ``ItemFailed``; ``"skip"`` reports it and continues with the next item.
    Only exceptions that are instances of ``retry_on`` are retried.
    """

    retries: int
    backoff: float
    backoff_factor: float
    max_backoff: float
    jitter: float
    timeout: float | None
    concurrency: int
    window: int
    on_failure: OnFailure
    retry_on: tuple[type[BaseException], ...]
    explicit: frozenset[str] = field(repr=False)
    """Names of the fields passed to the constructor; only these win in ``overlay``."""

    def __init__(
        self,
        *,
        retries: int = _UNSET,
        backoff: float = _UNSET,
        backoff_factor: float = _UNSET,
        max_backoff: float = _UNSET,
        jitter: float = _UNSET,
        timeout: float | None = _UNSET,
        concurrency: int = _UNSET,
        window: int = _UNSET,
        on_failure: OnFailure = _UNSET,
        retry_on: tuple[type[BaseException], ...] = _UNSET,
    ) -> None:
        given = {
            "retries": retries,
            "backoff": backoff,
            "backoff_factor": backoff_factor,
            "max_backoff": max_backoff,
            "jitter": jitter,
            "timeout": timeout,
            "concurrency": concurrency,
            "window": window,
            "on_failure": on_failure,
            "retry_on": retry_on,
        }
        explicit = frozenset(name for name, value in given.items() if value is not _UNSET)
        for name, value in given.items():
            resolved = _DEFAULTS[name] if value is _UNSET else value
            object.__setattr__(self, name, resolved)
        object.__setattr__(self, "explicit", explicit)
        self._check()

    def overlay(self, inherited: Policy) -> Policy:
        """This policy's explicit fields over ``inherited``; the union is explicit."""
        if not self.explicit:
            return inherited
        values = {name: getattr(inherited, name) for name in inherited.explicit}
        values.update({name: getattr(self, name) for name in self.explicit})
        return Policy(**values)

    def replace(self, **changes: Any) -> Policy:
        """A copy with ``changes`` applied (and marked explicit)."""
        values = {name: getattr(self, name) for name in self.explicit}
        values.update(changes)
        return Policy(**values)

    def delay_for(self, retry: int, item_id: str) -> float:
        """Seconds to wait before retry number ``retry`` (1-based) of the item ``item_id``."""
        base = min(self.backoff * self.backoff_factor ** (retry - 1), self.max_backoff)
        if self.jitter == 0.0 or base == 0.0:
            return base
        # A fraction in [0, 1) from a content hash: spreads retries of different items
        # without randomness, so timing is reproducible run to run.
        fraction = int(sha256_parts(item_id, str(retry))[:8], 16) / 0x1_0000_0000
        return base * (1.0 + self.jitter * fraction)

    def _check(self) -> None:
        _require_int("retries", self.retries, minimum=0)
        _require_int("concurrency", self.concurrency, minimum=1)
        _require_int("window", self.window, minimum=1)
        _require_number("backoff", self.backoff, minimum=0.0)
        _require_number("backoff_factor", self.backoff_factor, minimum=1.0)
        _require_number("max_backoff", self.max_backoff, minimum=0.0)
        _require_number("jitter", self.jitter, minimum=0.0)
        if self.jitter > 1.0:
            raise ConfigurationError(f"Policy 'jitter' must be within [0, 1] (got {self.jitter})")
        if self.timeout is not None:
            _require_number("timeout", self.timeout, minimum=0.0)
            if self.timeout == 0.0:
                raise ConfigurationError(
                    "Policy 'timeout' must be > 0 seconds (got 0); pass None for no timeout"
                )
        if self.on_failure not in _ON_FAILURE:
            raise ConfigurationError(
                f"Policy 'on_failure' must be 'raise' or 'skip' (got {self.on_failure!r})"
            )
        retry_on = cast(object, self.retry_on)
        if not isinstance(retry_on, tuple) or not all(
            isinstance(kind, type) and issubclass(kind, BaseException) for kind in retry_on
        ):
            raise ConfigurationError(
                f"Policy 'retry_on' must be a tuple of exception classes (got {retry_on!r})"
            )


def _require_int(name: str, value: object, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigurationError(f"Policy {name!r} must be an int >= {minimum} (got {value!r})")


def _require_number(name: str, value: object, *, minimum: float) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < minimum
    ):
        raise ConfigurationError(
            f"Policy {name!r} must be a finite number >= {minimum} (got {value!r})"
        )
