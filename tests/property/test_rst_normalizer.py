"""Properties of RstNormalizer over generated nasty reStructuredText (tests/strategies/rst)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastrag.models import Document
from fastrag.normalization import NormalizedDocument
from fastrag.normalization.dump import dump_tree
from fastrag.normalization.formats.rst import RstNormalizer
from tests.strategies.rst import HEADING_LIKE, documents

NORMALIZER = RstNormalizer()
CONTAINERS = {
    "list", "list_item", "definition_list", "definition", "field_list", "field",
    "blockquote", "footnote", "table", "admonition", "directive",
}
SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def normalize(source: str) -> NormalizedDocument:
    return NORMALIZER.normalize(Document("doc", "gen", source, {"content_format": "rst"}))


def within(inner: tuple[int, int], outer: tuple[int, int]) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


@SETTINGS
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
            assert node.spans == (unit.span,)
            assert node.text and "\n" not in node.text and "\r" not in node.text
            assert node.text.split()[0] in covered
        elif not node.children:
            # Leaves (and directives without a body) are their exact source slice.
            assert node.spans == (unit.span,)
            assert node.text == covered
        else:
            # A container owns only its own syntax before its first child.
            assert node.kind in CONTAINERS, node.kind
            assert node.text == ""
            assert within((unit.span.start, unit.span.end), (node.start, node.end))
            assert unit.span.end <= tree.node(node.children[0]).start


@SETTINGS
@given(documents())
def test_exclusions_are_what_they_claim(source: str) -> None:
    tree = normalize(source)
    for exclusion in tree.exclusions:
        text = exclusion.span.slice(source)
        if exclusion.reason == "whitespace":
            assert text.isspace()
        else:
            assert exclusion.reason in {"comment", "markup", "directive"}, exclusion.reason
            assert text.startswith(("..", "__")), text[:20]
    refused = [e for e in tree.exclusions if e.reason == "directive"]
    assert len([d for d in tree.diagnostics if "refused" in d]) == len(refused)


@SETTINGS
@given(documents())
def test_lineage_spans_nest_and_sections_follow_levels(source: str) -> None:
    tree = normalize(source)
    for node in tree.nodes[1:]:
        parent = tree.node(node.parent_id or "")
        assert len(node.spans) == 1
        if parent.spans:
            assert within((node.start, node.end), (parent.start, parent.end))
        if node.kind == "section":
            first = tree.node(node.children[0])
            assert first.kind == "heading" and first.level == node.level
            assert node.text == first.text
            assert (parent.level or 0) + 1 == node.level
    starts = [node.start for node in tree.nodes[1:]]
    assert starts == sorted(starts), "nodes are in document order"


@SETTINGS
@given(documents())
def test_headings_inside_code_are_never_headings(source: str) -> None:
    tree = normalize(source)
    code = [(node.start, node.end) for node in tree.nodes if node.kind == "code"]
    for heading in (node for node in tree.nodes if node.kind == "heading"):
        for start, end in code:
            assert heading.end <= start or heading.start >= end


@SETTINGS
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
    tree = normalize(source)
    assert [node.text for node in tree.nodes if node.kind == "heading"] == ["Real"]
    (code,) = [node for node in tree.nodes if node.kind == "code"]
    assert all(line.strip() in code.text for line in body)


_CHILD = """
import sys
from fastrag.models import Document
from fastrag.normalization.dump import dump_tree
from fastrag.normalization.formats.rst import RstNormalizer
source = sys.stdin.buffer.read().decode("utf-8", "surrogatepass")
tree = RstNormalizer().normalize(Document("doc", "gen", source, {"content_format": "rst"}))
sys.stdout.buffer.write(dump_tree(tree).encode("utf-8", "surrogatepass"))
"""


@settings(max_examples=5, deadline=None)
@given(documents())
def test_same_tree_in_another_process(source: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    root = Path(__file__).resolve().parents[2]
    child = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=source.encode("utf-8", "surrogatepass"),
        capture_output=True,
        check=True,
        env=env,
        cwd=root,
    )
    expected = dump_tree(normalize(source))
    assert child.stdout.decode("utf-8", "surrogatepass") == expected
