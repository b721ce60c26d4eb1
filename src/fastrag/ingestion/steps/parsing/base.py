"""The Parser family base: a raw file ``Document`` in, one parsed ``Document`` out.

Parsing is where document identity is decided, so this base owns it (as ``Chunker`` owns
chunk ids): a parser implements only ``parse(data, source) -> Parsed``; the base reads the
bytes, checks they are still the bytes discovery hashed, and builds the parsed document
with the agreed metadata — ``source``, ``source_type``, ``content_format``,
``parser_version``, ``encoding``, ``parse_diagnostics`` — and ``id`` = ``document_id``, a
hash of the parsed content (content identity, not the file name). Caching, retries and
events (``DocumentParsed``) are ``DocumentStep``'s; a cache hit never re-reads the file.

Error messages name the file by its relative path and never quote its text.
"""

from __future__ import annotations

import hashlib
import os
import stat
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from fastrag.exceptions import ConfigurationError, ParsingError
from fastrag.ingestion.sources import DEFAULT_MAX_FILE_BYTES
from fastrag.models import EMPTY_METADATA, ContentFormat, Document
from fastrag.pipeline import (
    CacheSetting,
    DocumentParsed,
    DocumentStep,
    ExecutionContext,
    ItemProduced,
    Policy,
)

__all__ = ["Parsed", "Parser", "document_id_of", "read_source_bytes"]

_DROPPED_KEYS = frozenset({"path"})
"""Raw metadata not carried into the parsed document: an absolute path is machine-specific
and would make output differ between two checkouts of the same folder."""


@dataclass(frozen=True, slots=True)
class Parsed:
    """What ``Parser.parse`` returns: the text, its format, and what the reader should know."""

    content: str
    content_format: ContentFormat | str
    diagnostics: tuple[str, ...] = ()
    """Human-readable notes (``"bom: ..."``, ``"undecodable: ..."``): offsets, never text."""
    metadata: Mapping[str, Any] = field(default_factory=lambda: EMPTY_METADATA)
    """Extra parser facts, e.g. ``{"encoding": "utf-8"}``."""


def document_id_of(content: str) -> str:
    """The ``document_id`` of parsed ``content``: 32 hex chars of its UTF-8 sha256."""
    return hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def read_source_bytes(source: Document, max_bytes: int) -> bytes:
    """The bytes of the file a raw document names, verified against discovery's sha256.

    Raises ``ParsingError`` naming the file when it vanished, is unreadable, is no longer
    a regular file, grew past ``max_bytes``, or changed since discovery.
    """
    name = source.source_id
    path = source.metadata.get("path")
    if not isinstance(path, str):
        raise ParsingError(f"{name}: raw document has no 'path' in its metadata")
    try:
        # Non-blocking, so a FIFO swapped in after discovery cannot hang the run.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError as error:
        raise ParsingError(
            f"{name}: deleted between discovery and parsing; re-run to process the folder "
            "as it is now"
        ) from error
    except PermissionError as error:
        raise ParsingError(
            f"{name}: cannot be read (permission denied); grant read permission "
            "(chmod +r) or exclude it"
        ) from error
    except OSError as error:
        raise ParsingError(
            f"{name}: cannot be opened ({error.strerror or error}); fix it or exclude it"
        ) from error
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise ParsingError(
            f"{name}: is no longer a regular file (replaced between discovery and "
            "parsing); re-run, or exclude it"
        )
    with os.fdopen(descriptor, "rb") as handle:
        try:
            data = handle.read(max_bytes + 1)
        except OSError as error:
            raise ParsingError(
                f"{name}: reading failed ({error.strerror or error}); fix it or exclude it"
            ) from error
    if len(data) > max_bytes:
        raise ParsingError(
            f"{name}: larger than the parser's {max_bytes}-byte cap; raise max_bytes "
            "(and --max-file-bytes) to ingest it"
        )
    expected = source.metadata.get("sha256")
    if isinstance(expected, str) and hashlib.sha256(data).hexdigest() != expected:
        raise ParsingError(
            f"{name}: changed between discovery and parsing (its sha256 no longer matches); "
            "re-run to process the new version"
        )
    return data


class Parser(DocumentStep, ABC):
    """Turns each raw file document into its parsed document; subclasses implement ``parse``.

    ``max_bytes`` caps how much of a file is read (default 50 MiB, as discovery's cap).
    """

    event_name = "Parsing"
    produced_event: ClassVar[type[ItemProduced]] = DocumentParsed

    version: ClassVar[int] = 1
    """Bump when a parser's output for the same bytes changes; part of ``parser_version``."""

    def __init__(
        self,
        *,
        max_bytes: int = DEFAULT_MAX_FILE_BYTES,
        cache: CacheSetting = None,
        policy: Policy | None = None,
    ) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
            raise ConfigurationError(
                f"{type(self).__name__} 'max_bytes' must be an int > 0 (got {max_bytes!r:.40})"
            )
        self.max_bytes = max_bytes
        super().__init__(cache=cache, policy=policy)

    @property
    def parser_version(self) -> str:
        """``"<parser class>:<version>"``, recorded on every parsed document."""
        return f"{type(self).__name__}:{self.version}"

    def config(self) -> Mapping[str, Any]:
        """This parser's cache identity: its version and read cap."""
        return {"version": self.version, "max_bytes": self.max_bytes}

    def validate_input(self, item: Document) -> None:
        """Accept only raw file documents: a ``Document`` whose metadata names its ``path``."""
        if not isinstance(item, Document):
            raise ParsingError(
                f"{self.name} parses raw file Documents (got {type(item).__name__}: "
                f"{item!r:.60}); build them with SourceFile.to_document() from discover()"
            )
        if not isinstance(item.metadata.get("path"), str):
            raise ParsingError(
                f"{self.name} cannot parse {item.source_id!r}: its metadata has no 'path' "
                "of the file to read; build raw documents with SourceFile.to_document()"
            )

    @abstractmethod
    def parse(self, data: bytes, source: Document) -> Parsed:
        """Turn the file's ``data`` into text; ``source`` is the raw document (for names)."""

    async def transform(self, item: Document, context: ExecutionContext) -> AsyncIterator[Document]:
        """Read, verify and parse one file; runs only on a cache miss."""
        data = read_source_bytes(item, self.max_bytes)
        yield self.build_document(item, self.parse(data, item))

    def build_document(self, source: Document, parsed: Parsed) -> Document:
        """The parsed document: agreed metadata first, then the raw metadata minus ``path``."""
        raw = source.metadata
        facts: dict[str, Any] = {
            "source": source.source_id,
            "source_type": raw.get("source_type", str(parsed.content_format)),
            "content_format": parsed.content_format,
            "parser_version": self.parser_version,
            **parsed.metadata,
            "parse_diagnostics": tuple(parsed.diagnostics),
        }
        for key, value in raw.items():
            if key not in _DROPPED_KEYS and key not in facts:
                facts[key] = value
        content = parsed.content
        return Document(document_id_of(content), source.source_id, content, facts)
