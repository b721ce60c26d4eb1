"""``OfficeParser``: what DOCX, PPTX and XLSX parsers share — ZIP caps and load errors.

Each subclass implements ``convert(data, name)`` with its light library (python-docx,
python-pptx, openpyxl, all under ``fastrag-ai[office]``); this base checks the package
first (``_office_zip``), so no library ever inflates a zip bomb, and turns whatever a
library raises on a broken file into a ``ParsingError`` naming the file.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from fastrag.exceptions import FastragError, ParsingError
from fastrag.ingestion.sources import DEFAULT_MAX_FILE_BYTES
from fastrag.ingestion.steps.parsing._office_zip import DEFAULT_ZIP_LIMITS, ZipLimits, check_package
from fastrag.ingestion.steps.parsing.base import Parsed, Parser
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import CacheSetting, Policy

__all__ = ["OfficeParser", "failure_reason", "load_error"]


class OfficeParser(Parser):
    """Base of the Office parsers: content format ``markdown``, ZIP checked before loading.

    ``max_uncompressed_bytes``, ``max_members`` and ``max_compression_ratio`` cap what the
    package may declare (see ``ZipLimits``); ``max_bytes`` caps the file as for every parser.
    """

    content_format: ClassVar[ContentFormat] = ContentFormat.MARKDOWN
    kind: ClassVar[str] = "Office"
    """The format named in error messages (``"DOCX"``)."""

    def __init__(
        self,
        *,
        max_uncompressed_bytes: int = DEFAULT_ZIP_LIMITS.max_uncompressed_bytes,
        max_members: int = DEFAULT_ZIP_LIMITS.max_members,
        max_compression_ratio: float = DEFAULT_ZIP_LIMITS.max_compression_ratio,
        max_bytes: int = DEFAULT_MAX_FILE_BYTES,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        self.zip_limits = ZipLimits(max_uncompressed_bytes, max_members, max_compression_ratio)
        super().__init__(max_bytes=max_bytes, cache=cache, policy=policy)

    def config(self) -> Mapping[str, Any]:
        """Cache identity: version, read cap and ZIP caps (a cap decides success)."""
        limits = self.zip_limits
        return {
            **super().config(),
            "max_uncompressed_bytes": limits.max_uncompressed_bytes,
            "max_members": limits.max_members,
            "max_compression_ratio": limits.max_compression_ratio,
        }

    def parse(self, data: bytes, source: Document) -> Parsed:
        """Check the package, then convert it to Markdown.

        Libraries raise anything (``KeyError``, ``ValueError``, lxml's errors...) on a
        malformed package, while loading or later while its parts are read; each becomes
        a ``ParsingError`` naming the file, never a crash of the run.
        """
        name = source.source_id
        check_package(data, name, self.kind, self.zip_limits)
        try:
            return self.convert(data, name)
        except FastragError:
            raise
        except Exception as error:  # a library failing on a hostile file
            raise load_error(name, self.kind, error) from error

    @abstractmethod
    def convert(self, data: bytes, name: str) -> Parsed:
        """Render the checked package ``data`` of file ``name`` as Markdown."""


def failure_reason(error: Exception) -> str:
    """What went wrong, safe to log: the exception type, or the missing part's name.

    Library messages are not quoted: they can carry document text.
    """
    if isinstance(error, KeyError) and error.args:
        return f"missing part: {str(error.args[0])[:120]}"
    return type(error).__name__


def load_error(name: str, kind: str, error: Exception) -> ParsingError:
    """The ``ParsingError`` for a package its library could not read."""
    reason = failure_reason(error)
    return ParsingError(
        f"{name}: is not a readable {kind} file ({reason}); re-save it from its application "
        "or exclude it"
    )
