"""The error hierarchy: every failure fastrag raises on purpose is a ``FastragError``.

Messages carry data and a fix: they name the offending value, what was expected and what
to do, so a user reading a log line never has to open the source to act on it.
"""

from __future__ import annotations

__all__ = [
    "CacheError",
    "ChunkingError",
    "ConfigurationError",
    "EncryptedDocumentError",
    "FastragError",
    "MissingDependencyError",
    "NeedsOcrError",
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


class NeedsOcrError(ParsingError):
    """A document (a scanned PDF) has no extractable text: it needs OCR, not a retry.

    Ingestion quarantines such a file (it needs a human or an OCR pass) rather than
    counting it as failed.
    """


class EncryptedDocumentError(ParsingError):
    """A document is encrypted and no (or a wrong) password was given."""


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
