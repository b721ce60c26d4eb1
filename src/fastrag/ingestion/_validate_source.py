"""What ``validate_jsonl`` needs from outside the JSONL: the re-parsed source and a tokenizer.

The source is re-parsed with the same parsers ``fastrag ingest`` uses
(``fastrag.ingestion.steps.parsing.default_parsers``) so ``document_id`` and the offsets
are checked against exactly what was chunked. Where that package is not installed in
this build, the file is decoded as UTF-8 (BOM stripped, strict) and the report says so:
that fallback is exact for UTF-8 text formats and says nothing about others.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from fastrag.exceptions import ConfigurationError, FastragError
from fastrag.models import Document

if TYPE_CHECKING:
    from fastrag.tokenization import Tokenizer

__all__ = ["FALLBACK_NOTE", "ParsedSource", "SourceError", "reparse", "tokenizer_for_identity"]

FALLBACK_NOTE: Final = (
    "fastrag.ingestion.steps.parsing is unavailable: sources were decoded as UTF-8 instead "
    "of re-parsed, and document_id was recomputed as sha256 of that text"
)

_ID_LENGTH: Final = 32


@dataclass(frozen=True, slots=True)
class ParsedSource:
    """The re-parsed parent: its id, its content and whether the UTF-8 fallback was used."""

    document_id: str
    content: str
    content_format: str | None
    fallback: bool


class SourceError(FastragError):
    """The source of a record cannot be found or re-parsed (message names the file)."""


def _resolve(source_dir: Path, source: str) -> Path:
    root = source_dir.resolve()
    path = (root / source).resolve()
    if not path.is_relative_to(root):
        raise SourceError(
            f"source {source!r} resolves outside the source directory {str(root)!r}; a "
            "record's source must be relative to the input root"
        )
    if not path.is_file():
        raise SourceError(
            f"source {source!r} is not a file under {str(root)!r}; pass the --source-dir the "
            "output was ingested from (or the file was removed since)"
        )
    return path


def reparse(source_dir: Path, source: str, source_type: str) -> ParsedSource:
    """Re-parse ``source`` (relative to ``source_dir``) as ``source_type``."""
    path = _resolve(source_dir, source)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise SourceError(f"cannot read source {source!r} ({error.strerror})") from error
    try:
        parsing = importlib.import_module("fastrag.ingestion.steps.parsing")
        default_parsers = parsing.default_parsers
    except (ImportError, AttributeError):
        return _decode_utf8(data, source)
    raw = Document(
        source,
        source,
        "",
        {
            "path": str(path),
            "relative_path": source,
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "source_type": source_type,
            "detected_by": "override",
        },
    )
    try:
        parsed = asyncio.run(default_parsers()([raw]).run())
    except FastragError as error:
        raise SourceError(f"cannot re-parse source {source!r}: {error}") from error
    if len(parsed) != 1 or not isinstance(parsed[0], Document):
        raise SourceError(
            f"re-parsing {source!r} as {source_type!r} gave {len(parsed)} documents, expected 1"
        )
    document = parsed[0]
    content_format = document.metadata.get("content_format")
    return ParsedSource(
        document.id,
        document.content,
        None if content_format is None else str(content_format),
        False,
    )


def _decode_utf8(data: bytes, source: str) -> ParsedSource:
    try:
        content = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SourceError(
            f"source {source!r} is not valid UTF-8 at byte {error.start} and the parsing "
            "package is unavailable to decode it"
        ) from error
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:_ID_LENGTH]
    return ParsedSource(digest, content, None, True)


def tokenizer_for_identity(identity: str) -> Tokenizer:
    """Rebuild the tokenizer a record names, where its identity is enough to do so.

    ``utf8-bytes:v1`` and tiktoken encoding names are; a Hugging Face ``tokenizer.json``
    identity is a hash of the file, so its path must be passed explicitly.
    """
    from fastrag.tokenization import TiktokenTokenizer, Utf8ByteTokenizer

    if identity == Utf8ByteTokenizer.identity:
        return Utf8ByteTokenizer()
    if identity.startswith("hf-tokenizer-json:"):
        raise ConfigurationError(
            f"the records were counted with a Hugging Face tokenizer ({identity[:40]}…); pass "
            "the same tokenizer.json with --tokenizer PATH to re-check token counts"
        )
    return TiktokenTokenizer(identity)
