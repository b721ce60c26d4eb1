"""Filters for routed steps: predicates over documents, by ``content_format`` or ``source_type``.

``Filter`` is the generic protocol from ``fastrag.pipeline`` (any callable ``item -> bool``),
re-exported here beside the document filters that implement it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fastrag.exceptions import ConfigurationError
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import Filter

__all__ = ["ContentFormatFilter", "Filter", "SourceTypeFilter"]


@dataclass(frozen=True, slots=True, init=False)
class ContentFormatFilter:
    """Match documents by ``Document.content_format`` (a missing format means text).

    ``include_formats=None`` admits every format; ``exclude_formats`` then removes some.
    Formats are ``ContentFormat`` members or strings, custom strings included. A non-
    ``Document`` item never matches. Reads only metadata, never content.
    """

    include_formats: frozenset[str] | None
    exclude_formats: frozenset[str]

    def __init__(
        self,
        include_formats: Iterable[ContentFormat | str] | None = None,
        exclude_formats: Iterable[ContentFormat | str] | None = None,
    ) -> None:
        include = None if include_formats is None else _formats("include_formats", include_formats)
        exclude = (
            frozenset() if exclude_formats is None else _formats("exclude_formats", exclude_formats)
        )
        if include is not None and include & exclude:
            raise ConfigurationError(
                f"ContentFormatFilter lists {sorted(include & exclude)} in both "
                "include_formats and exclude_formats; list each format in at most one"
            )
        object.__setattr__(self, "include_formats", include)
        object.__setattr__(self, "exclude_formats", exclude)

    def __call__(self, item: object, /) -> bool:
        """Whether ``item`` is a document whose format this filter admits."""
        if not isinstance(item, Document):
            return False
        content_format = item.content_format
        if self.include_formats is not None and content_format not in self.include_formats:
            return False
        return content_format not in self.exclude_formats


def _formats(name: str, values: Iterable[ContentFormat | str]) -> frozenset[str]:
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise ConfigurationError(
            f"ContentFormatFilter {name!r} must be a list of formats such as "
            f"[ContentFormat.MARKDOWN, 'text'] (got {type(values).__name__}: {values!r:.60})"
        )
    formats: set[str] = set()
    for value in values:
        if isinstance(value, ContentFormat):
            formats.add(value.value)
        elif isinstance(value, str) and value:
            formats.add(value)
        else:
            raise ConfigurationError(
                f"ContentFormatFilter {name!r} entries must be ContentFormat members or "
                f"non-empty strings (got {type(value).__name__}: {value!r:.60})"
            )
    return frozenset(formats)


@dataclass(frozen=True, slots=True, init=False)
class SourceTypeFilter:
    """Match raw or parsed documents by ``metadata["source_type"]`` (``"pdf"``, ``"rst"``...).

    What a ``ParserRouter`` routes on: discovery sets the source type from content and
    extension before anything is parsed. ``include=None`` admits every type; ``exclude``
    then removes some. A document without a source type matches only ``include=None``.
    Reads only metadata, never content.
    """

    include: frozenset[str] | None
    exclude: frozenset[str]

    def __init__(
        self, include: Iterable[str] | None = None, exclude: Iterable[str] | None = None
    ) -> None:
        included = None if include is None else _types("include", include)
        excluded = frozenset() if exclude is None else _types("exclude", exclude)
        if included is not None and included & excluded:
            raise ConfigurationError(
                f"SourceTypeFilter lists {sorted(included & excluded)} in both include and "
                "exclude; list each source type in at most one"
            )
        object.__setattr__(self, "include", included)
        object.__setattr__(self, "exclude", excluded)

    def __call__(self, item: object, /) -> bool:
        """Whether ``item`` is a document whose source type this filter admits."""
        if not isinstance(item, Document):
            return False
        source_type = item.metadata.get("source_type")
        if self.include is not None and source_type not in self.include:
            return False
        return source_type not in self.exclude


def _types(name: str, values: Iterable[str]) -> frozenset[str]:
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise ConfigurationError(
            f"SourceTypeFilter {name!r} must be a list of source types such as "
            f"['markdown', 'pdf'] (got {type(values).__name__}: {values!r:.60})"
        )
    types: set[str] = set()
    for value in values:
        if not isinstance(value, str) or not value:
            raise ConfigurationError(
                f"SourceTypeFilter {name!r} entries must be non-empty strings such as 'pdf' "
                f"(got {type(value).__name__}: {value!r:.60})"
            )
        types.add(value)
    return frozenset(types)
