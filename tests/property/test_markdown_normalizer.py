"""Properties of MarkdownNormalizer over generated nasty Markdown (tests/strategies/markdown)."""

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
from fastrag.normalization.formats.markdown import MarkdownNormalizer
from tests.strategies.markdown import HEADING_LIKE, documents

NORMALIZER = MarkdownNormalizer()
LEAVES = {"paragraph", "code", "html_block", "table_row", "thematic_break"}
SYNTAX_OWNERS = {"list_item", "blockquote", "admonition", "footnote"}
ASCII_WHITESPACE = set(" \t\n\r\x0b\x0c")
SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def normalize(source: str) -> NormalizedDocument:
    return NORMALIZER.normalize(Document("doc", "gen", source, {"content_format": "markdown"}))


def within(inner: tuple[int, int], outer: tuple[int, int]) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


@SETTINGS
@given(documents())
def test_tree_validates_and_units_round_trip(source: str) -> None:
    tree = normalize(source)  # normalize() returns result.validate()
    assert tree.content is source or tree.content == source
    for unit in tree.units:
        node = tree.node(unit.node_id)
        covered = unit.span.slice(source)
        assert covered and covered == source[unit.span.start : unit.span.end]
        assert covered[-1] not in ASCII_WHITESPACE, "units end on a visible character"
        if node.kind in LEAVES:
            assert node.spans == (unit.span,)
            assert node.text == covered
        elif node.kind == "heading":
            assert node.spans == (unit.span,)
            assert "\n" not in node.text and "\r" not in node.text
        else:
            assert node.kind in SYNTAX_OWNERS, node.kind
            assert node.text == ""
            assert within((unit.span.start, unit.span.end), (node.start, node.end))


@SETTINGS
@given(documents())
def test_exclusions_are_what_they_claim(source: str) -> None:
    tree = normalize(source)
    for exclusion in tree.exclusions:
        text = exclusion.span.slice(source)
        if exclusion.reason == "whitespace":
            assert set(text) <= ASCII_WHITESPACE
        elif exclusion.reason == "front_matter":
            assert exclusion.span.start == 0
            assert text.startswith(("---", "+++"))
            assert tree.metadata["front_matter"] in text
        else:
            assert exclusion.reason == "link_definition"
            assert text.lstrip(" ").startswith("[")


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
            assert parent.kind == "document" or (parent.level or 0) < (node.level or 0)


@SETTINGS
@given(documents())
def test_headings_inside_code_are_never_headings(source: str) -> None:
    tree = normalize(source)
    code = [(node.start, node.end) for node in tree.nodes if node.kind == "code"]
    for heading in (node for node in tree.nodes if node.kind == "heading"):
        for start, end in code:
            assert heading.end <= start or heading.start >= end


@SETTINGS
@given(st.lists(st.sampled_from(HEADING_LIKE), min_size=1, max_size=5), st.booleans())
def test_heading_lines_in_fences_stay_code(lines: list[str], tilde: bool) -> None:
    fence = "~~~" if tilde else "```"
    source = f"# Real\n\n{fence}md\n" + "\n".join(lines) + f"\n{fence}\n\ntail\n"
    tree = normalize(source)
    assert [node.text for node in tree.nodes if node.kind == "heading"] == ["Real"]
    (code,) = [node for node in tree.nodes if node.kind == "code"]
    assert all(line in code.text for line in lines)


_CHILD = """
import sys
from fastrag.models import Document
from fastrag.normalization.dump import dump_tree
from fastrag.normalization.formats.markdown import MarkdownNormalizer
source = sys.stdin.buffer.read().decode("utf-8", "surrogatepass")
tree = MarkdownNormalizer().normalize(Document("doc", "gen", source))
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
