"""Properties of MarkdownNormalizer over generated nasty Markdown (tests/strategies/markdown)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from fastrag.normalization import CoverageUnit, NormalizedDocument, NormalizedNode
from fastrag.normalization.formats.markdown import MarkdownNormalizer
from tests.property import _normalizer_checks as checks
from tests.strategies.markdown import HEADING_LIKE, documents

SUBJECT = checks.NormalizerUnderTest(MarkdownNormalizer, "markdown")
normalize = SUBJECT.normalize
LEAVES = {"paragraph", "code", "html_block", "table_row"}
THEMATIC_BREAK = re.compile(r"([-*_])(?:[ \t]*\1){2,}")
"""A thematic break as excluded (indentation and trailing blanks are whitespace)."""
HTML_REASONS = {
    "markup",
    "comment",
    "script",
    "style",
    "template",
    "noscript",
    "boilerplate",
    "navigation",
    "ui_control",
}
"""Why the HTML adapter excludes source (``Exclusion``'s docstring lists them)."""
SYNTAX_OWNERS = {"list_item", "blockquote", "admonition", "footnote"}
ASCII_WHITESPACE = set(" \t\n\r\x0b\x0c")


def assert_read_html_unit(
    tree: NormalizedDocument, node: NormalizedNode, unit: CoverageUnit
) -> None:
    """An HTML block read as text: its units lie in the block and every run of its map
    lies in one of them; a run of equal lengths shows its source, character for
    character (a whitespace character may show as a space)."""
    assert checks.within((unit.span.start, unit.span.end), (node.start, node.end))
    units = [(u.span.start, u.span.end) for u in tree.units if u.node_id == node.node_id]
    for run in node.serialization:
        assert any(checks.within((run.source_start, run.source_end), u) for u in units)
        shown = node.text[run.display_start : run.display_end]
        if run.verbatim:
            source = tree.content[run.source_start : run.source_end]
            assert all(
                a == b or (a.isspace() and b.isspace()) for a, b in zip(shown, source, strict=True)
            )


@checks.GENERATED
@given(documents())
def test_tree_validates_and_units_round_trip(source: str) -> None:
    tree = normalize(source)  # normalize() returns result.validate()
    assert tree.content is source or tree.content == source
    for unit in tree.units:
        node = tree.node(unit.node_id)
        covered = unit.span.slice(source)
        assert covered and covered == source[unit.span.start : unit.span.end]
        assert covered[-1] not in ASCII_WHITESPACE, "units end on a visible character"
        if node.kind == "html_block" and node.serialization:
            assert_read_html_unit(tree, node, unit)
        elif node.kind in LEAVES:
            checks.assert_leaf_unit(node, unit, covered)
        elif node.kind == "heading":
            checks.assert_heading_unit(node, unit)
        else:
            checks.assert_syntax_unit(node, unit, SYNTAX_OWNERS)


@checks.GENERATED
@given(documents())
def test_exclusions_are_what_they_claim(source: str) -> None:
    tree = normalize(source)
    blocks = [(node.start, node.end) for node in tree.nodes if node.kind == "html_block"]
    for exclusion in tree.exclusions:
        text = exclusion.span.slice(source)
        span = (exclusion.span.start, exclusion.span.end)
        if exclusion.reason == "whitespace":
            assert set(text) <= ASCII_WHITESPACE
        elif any(checks.within(span, block) for block in blocks):
            # Inside an HTML block read as text: the HTML adapter's own reasons.
            assert exclusion.reason in HTML_REASONS, exclusion.reason
        elif exclusion.reason == "front_matter":
            # Whole, or in two around a title the document is headed by (its unit).
            front = [e.span for e in tree.exclusions if e.reason == "front_matter"]
            whole = source[front[0].start : front[-1].end]
            assert front[0].start == 0 and len(front) <= 2
            assert whole.startswith(("---", "+++"))
            assert tree.metadata["front_matter"] in whole
            if len(front) == 2:
                title = tree.nodes[2]
                assert (title.kind, title.level) == ("heading", 1)
                assert (title.start, title.end) == (front[0].end, front[1].start)
        elif exclusion.reason == "comment":
            assert text.startswith("<!--")
            assert text.endswith("-->")
        elif exclusion.reason == "markup":  # a MyST target, tags only, a fence, a rule
            assert text.startswith(("(", "<", "```", "~~~")) or THEMATIC_BREAK.fullmatch(text)
        elif exclusion.reason == "badges":
            assert text.startswith("[![")
        elif exclusion.reason == "navigation":  # a link bar or a table of contents
            assert text.lstrip(" ")[:1] in "[-*+0123456789"
        else:
            assert exclusion.reason == "link_definition"
            assert text.lstrip(" ").startswith("[")


@checks.GENERATED
@given(documents())
def test_lineage_spans_nest_and_sections_follow_levels(source: str) -> None:
    checks.assert_lineage(normalize(source), spanless_parents=True, consecutive_levels=False)


@checks.GENERATED
@given(documents())
def test_headings_inside_code_are_never_headings(source: str) -> None:
    checks.assert_no_heading_inside_code(normalize(source))


@checks.GENERATED
@given(st.lists(st.sampled_from(HEADING_LIKE), min_size=1, max_size=5), st.booleans())
def test_heading_lines_in_fences_stay_code(lines: list[str], tilde: bool) -> None:
    fence = "~~~" if tilde else "```"
    source = f"# Real\n\n{fence}md\n" + "\n".join(lines) + f"\n{fence}\n\ntail\n"
    code = checks.only_real_heading_and_one_code(normalize(source))
    assert all(line in code.text for line in lines)


@checks.IN_ANOTHER_PROCESS
@given(documents())
def test_same_tree_in_another_process(source: str) -> None:
    SUBJECT.assert_same_tree_in_another_process(source)
