"""``NormalizerRegistry``: explicit formats, actionable errors, stable identities."""

from __future__ import annotations

import pytest

from fastrag.exceptions import ConfigurationError, NormalizationError
from fastrag.models import Document
from fastrag.normalization import (
    NormalizedDocument,
    NormalizerRegistry,
    SourceSpan,
    UnsupportedFormatError,
)
from tests._seed_examples import RecordNormalizer


def test_builtins_are_listed_without_importing_their_libraries() -> None:
    registry = NormalizerRegistry()
    assert {"text", "markdown", "rst", "html"} <= registry.formats
    assert NormalizerRegistry(builtins=False).formats == frozenset()


def test_register_and_select_by_explicit_format() -> None:
    registry = NormalizerRegistry(builtins=False)
    registry.register("records", RecordNormalizer())
    document = Document("r1", "local", "Pear: water weekly.", {"content_format": "records"})
    tree = registry.normalize(document)
    assert tree.format == "records" and tree.units[0].span == SourceSpan(0, 19)
    assert "records" in registry and list(registry) == ["records"]
    assert registry.identities() == {"records": "records:whole-source:v1"}


def test_duplicate_registration_needs_replace() -> None:
    registry = NormalizerRegistry(builtins=False)
    registry.register("records", RecordNormalizer())
    with pytest.raises(ConfigurationError, match="pass replace=True"):
        registry.register("records", RecordNormalizer())
    replacement = RecordNormalizer()
    registry.register("records", replacement, replace=True)
    assert registry.get("records") is replacement


def test_unknown_format_lists_registered_ones_and_how_to_register() -> None:
    registry = NormalizerRegistry(builtins=False)
    registry.register("records", RecordNormalizer())
    document = Document("d", "s", "x", {"content_format": "asciidoc"})
    with pytest.raises(UnsupportedFormatError) as caught:
        registry.normalize(document)
    message = str(caught.value)
    assert "'asciidoc'" in message and "records" in message and "register(" in message


def test_missing_format_means_text() -> None:
    registry = NormalizerRegistry(builtins=False)
    with pytest.raises(UnsupportedFormatError, match="'text'"):
        registry.normalize(Document("d", "s", "x"))


@pytest.mark.parametrize(
    ("normalizer", "message"),
    [
        (object(), "identity"),
        (type("NoNormalize", (), {"identity": "x:v1"})(), "normalize"),
    ],
)
def test_register_rejects_incomplete_normalizers(normalizer: object, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        NormalizerRegistry().register("custom", normalizer)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="nonempty str"):
        NormalizerRegistry().register("", RecordNormalizer())


def test_normalizer_returning_wrong_things_is_caught() -> None:
    class Wrong:
        identity = "wrong:v1"

        def normalize(self, document: Document) -> object:
            return "not a tree"

    class OtherDocument(RecordNormalizer):
        def normalize(self, document: Document) -> NormalizedDocument:
            return super().normalize(Document("other", "s", document.content))

    registry = NormalizerRegistry(builtins=False)
    registry.register("wrong", Wrong())  # type: ignore[arg-type]
    registry.register("other", OtherDocument())
    with pytest.raises(NormalizationError, match="expected a NormalizedDocument"):
        registry.normalize(Document("d", "s", "x", {"content_format": "wrong"}))
    with pytest.raises(NormalizationError, match="another document"):
        registry.normalize(Document("d", "s", "x", {"content_format": "other"}))
