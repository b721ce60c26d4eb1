"""The Document value and the error hierarchy."""

from __future__ import annotations

import pickle

import pytest

from fastrag.exceptions import (
    ChunkingError,
    ConfigurationError,
    FastragError,
    MissingDependencyError,
    NormalizationError,
    ParsingError,
)
from fastrag.models import ContentFormat, Document, content_format_of


def test_document_positional_fields_as_the_seeds_use_them() -> None:
    document = Document("orchard-guide", "local-guide", "# Orchard\n", metadata={"a": 1})
    assert (document.id, document.source_id, document.content) == (
        "orchard-guide",
        "local-guide",
        "# Orchard\n",
    )
    assert document.metadata["a"] == 1


def test_document_is_immutable_including_its_metadata() -> None:
    source = {"content_format": "markdown"}
    document = Document("d", "s", "x", metadata=source)
    source["content_format"] = "html"  # the caller's dict is copied, not shared
    assert document.metadata["content_format"] == "markdown"
    with pytest.raises(AttributeError):
        document.content = "y"  # type: ignore[misc]
    with pytest.raises(TypeError):
        document.metadata["new"] = 1  # type: ignore[index]


def test_document_equality_hash_and_pickle() -> None:
    first = Document("d", "s", "text", {"k": (1, 2)})
    second = Document("d", "s", "text", {"k": (1, 2)})
    assert first == second
    assert hash(first) == hash(second)
    assert first != Document("d", "s", "text", {"k": (1, 3)})
    assert pickle.loads(pickle.dumps(first)) == first
    assert first != "d"


@pytest.mark.parametrize(
    ("field_values", "name"),
    [((1, "s", "c"), "id"), (("d", None, "c"), "source_id"), (("d", "s", b"c"), "content")],
)
def test_document_rejects_non_strings_naming_the_field(
    field_values: tuple[object, object, object], name: str
) -> None:
    with pytest.raises(ConfigurationError, match=f"Document.{name} must be a str"):
        Document(*field_values)  # type: ignore[arg-type]


def test_document_rejects_non_mapping_metadata() -> None:
    with pytest.raises(ConfigurationError, match="metadata must be a mapping"):
        Document("d", "s", "c", metadata=[("a", 1)])  # type: ignore[arg-type]


def test_missing_content_format_means_text() -> None:
    assert Document("d", "s", "c").content_format == "text"
    assert content_format_of({"content_format": ContentFormat.MARKDOWN}) == "markdown"
    assert content_format_of({"content_format": "records"}) == "records"
    assert ContentFormat("html") is ContentFormat.HTML
    assert ContentFormat.RST == "rst"


def test_with_metadata_merges_over_a_copy() -> None:
    document = Document("d", "s", "c", {"a": 1, "b": 2})
    updated = document.with_metadata(b=3)
    assert dict(updated.metadata) == {"a": 1, "b": 3}
    assert dict(document.metadata) == {"a": 1, "b": 2}


def test_error_tree_has_one_root_and_actionable_missing_dependency() -> None:
    for error_type in (ConfigurationError, ParsingError, ChunkingError, NormalizationError):
        assert issubclass(error_type, FastragError)
    assert issubclass(NormalizationError, ParsingError)
    error = MissingDependencyError("the markdown normalizer", "normalization", "pyromark")
    assert isinstance(error, ImportError)
    assert "pip install 'fastrag-ai[normalization]'" in str(error)
    assert "pyromark" in str(error)
