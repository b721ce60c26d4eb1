"""Filter literals built from untrusted strings parse back to exactly that string.

Parsed with Milvus Lite's own expression parser: what it yields is what the store's
queries compare against, so an injected ``or`` would show up as a different tree.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fastrag.ingestion.steps.storing import _expression as expr

filter_api = pytest.importorskip("milvus_lite.search.filter")
from milvus_lite.search.filter.ast import (  # noqa: E402
    And,
    ArrayContainsOp,
    CmpOp,
    FieldRef,
    StringLit,
)

HOSTILE = [
    'a" or tenant != "x',
    "a' or '1' == '1",
    'a\\" or true or \\"',
    "back\\slash\\",
    '"',
    "\\",
    "line\nbreak\r\ttab",
    'tenant == "b"',
    "null\x00byte",
    "ünïcødé ✓ 𝔘",
]


def _tenant_clause(value: str) -> CmpOp:
    tree = filter_api.parse_expr(expr.equals("tenant", value))
    assert isinstance(tree, CmpOp)
    return tree


@pytest.mark.parametrize("value", HOSTILE)
def test_a_hostile_value_stays_one_string_literal(value: str) -> None:
    tree = _tenant_clause(value)
    assert tree.op == "=="
    assert tree.left == FieldRef(name="tenant", pos=0)
    assert isinstance(tree.right, StringLit)
    assert tree.right.value == value


@given(st.text())
def test_any_text_round_trips_through_the_parser(value: str) -> None:
    right = _tenant_clause(value).right
    assert isinstance(right, StringLit) and right.value == value


@given(st.lists(st.text(), min_size=1, max_size=5))
def test_acl_lists_round_trip(groups: list[str]) -> None:
    tree = filter_api.parse_expr(
        expr.all_of([expr.equals("tenant", "t"), expr.contains_any("acl", groups)])
    )
    assert isinstance(tree, And)
    contains = tree.operands[1]
    assert isinstance(contains, ArrayContainsOp) and contains.mode == "any"
    assert [element.value for element in contains.values.elements] == groups


def test_literal_quotes_only_what_the_grammars_share() -> None:
    assert expr.literal('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'
    assert expr.literal("it's") == '"it\'s"'
    assert expr.literal(42) == "42"
    assert expr.all_of(["", "x == 1", ""]) == "(x == 1)"
    assert expr.all_of([]) == ""
