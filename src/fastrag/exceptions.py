"""The error hierarchy: every failure fastrag raises on purpose is a ``FastragError``.

Messages carry data and a fix: they name the offending value, what was expected and what
to do, so a user reading a log line never has to open the source to act on it.
"""

from __future__ import annotations

__all__ = [
    "CacheError",
    "ChunkingError",
    "ConfigurationError",
    "FastragError",
    "MissingDependencyError",
    "NormalizationError",
    "ParsingError",
    "PipelineError",
    "ValidationError",
]


class FastragError(Exception):
    """Root of every error fastrag raises deliberately; catch this to catch them all."""


class ConfigurationError(FastragError, ValueError):
    """A constructor argument or option is invalid; raised before any work is done."""


class MissingDependencyError(FastragError, ImportError):
    """An optional extra is needed for the requested feature but is not installed."""

    def __init__(self, feature: str, extra: str, module: str) -> None:
        self.feature = feature
        self.extra = extra
        self.module = module
        super().__init__(
            f"{feature} needs the optional module {module!r}, which is not installed; "
            f"run: pip install 'fastrag-ai[{extra}]'"
        )


class ParsingError(FastragError):
    """Source bytes or text could not be turned into a ``Document``."""


class NormalizationError(ParsingError):
    """A parsed document could not be read into a valid normalized tree."""


class ChunkingError(FastragError):
    """A document could not be split into chunks that satisfy the configured contract."""


class ValidationError(FastragError):
    """Produced output broke a contract (coverage, offsets, budget, identity)."""


class PipelineError(FastragError):
    """The step graph was misused or an item could not be processed."""


class CacheError(FastragError):
    """A cache store is unreadable, corrupt or of an incompatible schema."""
