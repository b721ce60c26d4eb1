"""Properties of RstNormalizer over generated nasty reStructuredText (tests/strategies/rst)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from fastrag.normalization.formats.rst import RstNormalizer
from tests.property import _normalizer_checks as checks
from tests.strategies.rst import HEADING_LIKE, documents

SUBJECT = checks.NormalizerUnderTest(RstNormalizer, "rst")
normalize = SUBJECT.normalize
TRANSITION = re.compile(r"([!-/:-@\[-`{-~])\1{3,}")
"""A transition: four or more of one punctuation character, alone on its line."""
CONTAINERS = {
    "list",
    "list_item",
    "definition_list",
    "definition",
    "field_list",
    "field",
    "blockquote",
    "footnote",
    "table",
    "admonition",
    "directive",
}


@checks.GENERATED
@given(documents())
def test_tree_validates_and_units_round_trip(source: str) -> None:
    tree = normalize(source)  # normalize() returns result.validate()
    assert tree.content == source
    for unit in tree.units:
        node = tree.node(unit.node_id)
        covered = unit.span.slice(source)
        assert covered
        assert not covered[0].isspace() and not covered[-1].isspace()
        if node.kind == "heading":
            checks.assert_heading_unit(node, unit)
            assert node.text and node.text.split()[0] in covered
        elif not node.children:
            # Leaves (and directives without a body) are their exact source slice.
            checks.assert_leaf_unit(node, unit, covered)
        else:
            # A container owns only its own syntax before its first child.
            checks.assert_syntax_unit(node, unit, CONTAINERS)
            assert unit.span.end <= tree.node(node.children[0]).start


@checks.GENERATED
@given(documents())
def test_exclusions_are_what_they_claim(source: str) -> None:
    tree = normalize(source)
    for exclusion in tree.exclusions:
        text = exclusion.span.slice(source)
        if exclusion.reason == "whitespace":
            assert text.isspace()
        elif exclusion.reason == "badges":  # image substitution references only
            assert text.startswith("|"), text[:20]
        elif TRANSITION.fullmatch(text):
            assert exclusion.reason == "markup"
        else:
            assert exclusion.reason in {"comment", "markup", "directive"}, exclusion.reason
            assert text.startswith(("..", "__", "|")), text[:20]
    refused = [e for e in tree.exclusions if e.reason == "directive"]
    assert len([d for d in tree.diagnostics if "refused" in d]) == len(refused)


@checks.GENERATED
@given(documents())
def test_lineage_spans_nest_and_sections_follow_levels(source: str) -> None:
    tree = normalize(source)
    checks.assert_lineage(tree, spanless_parents=True, consecutive_levels=True)
    starts = [node.start for node in tree.nodes[1:]]
    assert starts == sorted(starts), "nodes are in document order"


@checks.GENERATED
@given(documents())
def test_headings_inside_code_are_never_headings(source: str) -> None:
    checks.assert_no_heading_inside_code(normalize(source))


@checks.GENERATED
@given(
    st.lists(st.sampled_from(HEADING_LIKE), min_size=1, max_size=4),
    st.sampled_from(["Example::", "::", ".. code-block:: rst", ".. code:: rst"]),
    st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_title_lines_in_literal_blocks_stay_code(
    pairs: list[tuple[str, str]], opener: str, newline: str
) -> None:
    body = [f"   {line}" for pair in pairs for line in pair]
    lines = ["Real", "====", "", opener, "", *body, "", "tail"]
    source = newline.join(lines) + newline
    code = checks.only_real_heading_and_one_code(normalize(source))
    assert all(line.strip() in code.text for line in body)


@checks.IN_ANOTHER_PROCESS
@given(documents())
def test_same_tree_in_another_process(source: str) -> None:
    SUBJECT.assert_same_tree_in_another_process(source)
