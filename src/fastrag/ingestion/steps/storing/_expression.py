"""Milvus boolean expressions built from untrusted values, with exact escaping.

Tenant names, ACL groups, sources and ids come from documents and callers, so a value is
never pasted into an expression: it becomes a double-quoted string literal in which only
the escapes both Milvus grammars share are used (``\\\\``, ``\\"``, ``\\n``, ``\\r``,
``\\t``; the server's ANTLR grammar and Milvus Lite's tokenizer agree on exactly these).
Every other character, including a single quote, stands for itself inside double quotes.
Field names come only from this package's schema table, never from a caller.
Hand-written because pymilvus's ``filter_params`` templates are not supported by Milvus
Lite, and the store must run the same expressions against both.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

__all__ = ["all_of", "contains_any", "equals", "greater_than", "literal", "not_in", "one_of"]

_ESCAPES: Final = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"})


def literal(value: str | int) -> str:
    """``value`` as a Milvus literal: a quoted, escaped string or a decimal integer."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return '"' + value.translate(_ESCAPES) + '"'


def _list(values: Iterable[str | int]) -> str:
    return "[" + ", ".join(literal(value) for value in values) + "]"


def equals(field: str, value: str | int) -> str:
    """``field == value``."""
    return f"{field} == {literal(value)}"


def greater_than(field: str, value: str | int) -> str:
    """``field > value`` (used to page through primary keys)."""
    return f"{field} > {literal(value)}"


def one_of(field: str, values: Sequence[str | int]) -> str:
    """``field in [values]``."""
    return f"{field} in {_list(values)}"


def not_in(field: str, values: Sequence[str | int]) -> str:
    """``field not in [values]``."""
    return f"{field} not in {_list(values)}"


def contains_any(field: str, values: Sequence[str]) -> str:
    """True when the ARRAY ``field`` shares at least one element with ``values``."""
    return f"array_contains_any({field}, {_list(values)})"


def all_of(clauses: Iterable[str]) -> str:
    """The conjunction of ``clauses``, each parenthesized; ``""`` (match all) when empty."""
    parts = [f"({clause})" for clause in clauses if clause]
    return " and ".join(parts)
