"""The value every step passes along: an immutable ``Document`` and its content formats."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from fastrag.exceptions import ConfigurationError

__all__ = ["EMPTY_METADATA", "ContentFormat", "Document", "content_format_of"]


class ContentFormat(StrEnum):
    """How ``Document.content`` is to be read; chosen by the parser, never sniffed later."""

    TEXT = "text"
    MARKDOWN = "markdown"
    RST = "rst"
    HTML = "html"
    DOCLING = "docling"


EMPTY_METADATA: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Document:
    """One parsed document or one chunk of one.

    ``id`` identifies this item (a chunk id for chunks); ``source_id`` names where it came
    from; ``content`` is the text. ``metadata`` is copied into a read-only mapping at
    construction so no step can mutate an item another step (or a cache) still holds.
    Values inside it should themselves be immutable (tuples, strings, numbers).
    """

    id: str
    source_id: str
    content: str
    metadata: Mapping[str, Any] = field(default_factory=lambda: EMPTY_METADATA)

    def __post_init__(self) -> None:
        for name in ("id", "source_id", "content"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise ConfigurationError(
                    f"Document.{name} must be a str (got {type(value).__name__}: {value!r:.80})"
                )
        if not isinstance(self.metadata, Mapping):
            raise ConfigurationError(
                f"Document.metadata must be a mapping (got {type(self.metadata).__name__})"
            )
        if not isinstance(self.metadata, MappingProxyType):
            object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    def __reduce__(self) -> tuple[type[Document], tuple[str, str, str, dict[str, Any]]]:
        # MappingProxyType cannot be pickled; process pools need Documents to travel.
        return (Document, (self.id, self.source_id, self.content, dict(self.metadata)))

    def __hash__(self) -> int:
        return hash((self.id, self.source_id, self.content))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Document):
            return NotImplemented
        return (
            self.id == other.id
            and self.source_id == other.source_id
            and self.content == other.content
            and dict(self.metadata) == dict(other.metadata)
        )

    def with_metadata(self, **updates: Any) -> Document:
        """A copy with ``updates`` merged over this document's metadata."""
        return Document(self.id, self.source_id, self.content, {**self.metadata, **updates})

    @property
    def content_format(self) -> str:
        """The explicit ``metadata["content_format"]``; a missing one means text."""
        return content_format_of(self.metadata)


def content_format_of(metadata: Mapping[str, Any]) -> str:
    """Read the declared format as a plain string (enum members compare equal to it)."""
    value = metadata.get("content_format")
    if value is None:
        return ContentFormat.TEXT.value
    return str(value.value if isinstance(value, ContentFormat) else value)
