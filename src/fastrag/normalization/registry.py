"""Choosing a normalizer by the document's declared format: one table, no sniffing."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Protocol, runtime_checkable

from fastrag.exceptions import ConfigurationError, NormalizationError
from fastrag.models import Document, content_format_of
from fastrag.normalization.model import NormalizedDocument

__all__ = ["BUILTIN_FORMATS", "Normalizer", "NormalizerRegistry", "UnsupportedFormatError"]


@runtime_checkable
class Normalizer(Protocol):
    """Reads one parsed string into a validated ``NormalizedDocument``.

    ``identity`` is a stable, nonsecret string that must change whenever the output would
    (a new option value, a new adapter version): chunk identities and caches include it.
    """

    identity: str

    def normalize(self, document: Document) -> NormalizedDocument: ...


class UnsupportedFormatError(NormalizationError):
    """No normalizer is registered for a document's ``content_format``."""


# format -> (module, class). Each module is cheap to import: its adapter imports any
# third-party parser in its constructor, raising MissingDependencyError naming the extra.
BUILTIN_FORMATS: Mapping[str, tuple[str, str]] = {
    "text": ("fastrag.normalization.formats.text", "TextNormalizer"),
    "markdown": ("fastrag.normalization.formats.markdown", "MarkdownNormalizer"),
    "rst": ("fastrag.normalization.formats.rst", "RstNormalizer"),
    "html": ("fastrag.normalization.formats.html", "HtmlNormalizer"),
}


def _builtin_class(format_name: str) -> type[Normalizer]:
    """The built-in adapter class; its module imports its third-party library lazily."""
    module_name, class_name = BUILTIN_FORMATS[format_name]
    normalizer_class: type[Normalizer] = getattr(importlib.import_module(module_name), class_name)
    return normalizer_class


def _builtin_factory(format_name: str) -> Callable[[], Normalizer]:
    def build() -> Normalizer:
        # Built-in constructors raise MissingDependencyError naming their extra.
        return _builtin_class(format_name)()

    return build


class NormalizerRegistry:
    """An instance-local ``format -> Normalizer`` table.

    ``NormalizerRegistry()`` starts with the four built-in adapters (text, Markdown,
    reStructuredText, HTML), created on first use so that their optional libraries are
    imported only when a document of that format arrives. ``builtins=False`` starts empty.
    """

    def __init__(self, *, builtins: bool = True) -> None:
        self._factories: dict[str, Callable[[], Normalizer]] = {}
        self._normalizers: dict[str, Normalizer] = {}
        if builtins:
            for format_name in BUILTIN_FORMATS:
                self._factories[format_name] = _builtin_factory(format_name)

    def register(self, format: str, normalizer: Normalizer, replace: bool = False) -> None:
        """Register ``normalizer`` for documents whose ``content_format`` is ``format``."""
        if not isinstance(format, str) or not format:
            raise ConfigurationError(f"format must be a nonempty str (got {format!r})")
        identity = getattr(normalizer, "identity", None)
        if not isinstance(identity, str) or not identity:
            raise ConfigurationError(
                f"normalizer for {format!r} must have a nonempty str 'identity' "
                f"(got {identity!r}); make it change whenever its output would"
            )
        if not callable(getattr(normalizer, "normalize", None)):
            raise ConfigurationError(
                f"normalizer for {format!r} must define normalize(document) "
                f"(got {type(normalizer).__name__})"
            )
        if format in self and not replace:
            raise ConfigurationError(
                f"a normalizer for format {format!r} is already registered; "
                "pass replace=True to replace it"
            )
        self._factories.pop(format, None)
        self._normalizers[format] = normalizer

    @property
    def formats(self) -> frozenset[str]:
        return frozenset(self._factories) | frozenset(self._normalizers)

    def __contains__(self, format: object) -> bool:
        return format in self._normalizers or format in self._factories

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.formats))

    def get(self, format: str) -> Normalizer:
        """The normalizer for ``format``; an actionable error when none is registered."""
        normalizer = self._normalizers.get(format)
        if normalizer is not None:
            return normalizer
        factory = self._factories.get(format)
        if factory is None:
            registered = ", ".join(sorted(self.formats)) or "none"
            raise UnsupportedFormatError(
                f"no normalizer is registered for content_format {format!r} (registered: "
                f"{registered}); set the document's metadata['content_format'] to one of "
                f"those, or register one with registry.register({format!r}, normalizer)"
            )
        normalizer = factory()
        self._normalizers[format] = normalizer
        del self._factories[format]
        return normalizer

    def identities(self) -> dict[str, str]:
        """``format -> identity`` for every registered format, for cache identity.

        Built-in adapters are identified without importing their libraries.
        """
        result: dict[str, str] = {}
        for format_name in sorted(self.formats):
            normalizer = self._normalizers.get(format_name)
            if normalizer is not None:
                result[format_name] = normalizer.identity
            else:
                result[format_name] = _builtin_class(format_name).identity
        return result

    def normalize(self, document: Document) -> NormalizedDocument:
        """Normalize ``document`` with the adapter for its declared format, then validate."""
        format_name = content_format_of(document.metadata)
        result = self.get(format_name).normalize(document)
        if not isinstance(result, NormalizedDocument):
            raise NormalizationError(
                f"normalizer for {format_name!r} returned {type(result).__name__}, "
                "expected a NormalizedDocument"
            )
        if result.document is not document and result.document != document:
            raise NormalizationError(
                f"normalizer for {format_name!r} returned a tree of another document "
                f"({result.document.id!r}, expected {document.id!r})"
            )
        return result.validate()
