"""The limits every built-in adapter takes, checked and named the same way.

Each adapter accepts ``max_characters`` (whether input is accepted at all) and limits that
shape its output (``max_depth``, ``max_table_cells``, …). Output-shaping options that
differ from their defaults are appended to the adapter's identity, so chunk ids and
caches change exactly when the output can.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastrag.exceptions import ConfigurationError, NormalizationError
from fastrag.models import Document

__all__ = ["check_positive", "check_size", "refined_identity"]


def check_positive(owner: str, limits: Mapping[str, int]) -> None:
    """Every limit must be an int >= 1; the error names the class and the option."""
    for name, value in limits.items():
        if type(value) is not int or value < 1:
            raise ConfigurationError(f"{owner}({name}=...) must be an int >= 1 (got {value!r})")


def refined_identity(
    base: str, options: Mapping[str, object], defaults: Mapping[str, object]
) -> str:
    """``base`` plus ``:name=value`` for each output-shaping option off its default."""
    changed = [f"{name}={value}" for name, value in options.items() if value != defaults[name]]
    return ":".join([base, *changed])


def check_size(owner: str, document: Document, max_characters: int) -> None:
    """Refuse a document longer than ``max_characters``, saying how to accept it."""
    length = len(document.content)
    if length > max_characters:
        raise NormalizationError(
            f"document {document.id!r} has {length} characters, more than "
            f"max_characters={max_characters}; raise {owner}(max_characters=...) or split "
            "the document"
        )
