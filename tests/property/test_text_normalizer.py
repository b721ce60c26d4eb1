"""Properties of TextNormalizer over generated text (tests/strategies/text)."""

from __future__ import annotations

import re

from hypothesis import given, settings

from fastrag.normalization.formats.text import TextNormalizer
from tests.property._normalizer_checks import IN_ANOTHER_PROCESS, NormalizerUnderTest
from tests.strategies.text import documents

SUBJECT = NormalizerUnderTest(TextNormalizer, None)
normalize = SUBJECT.normalize
LINE_END = re.compile(r"\r\n|\r|\n")
SETTINGS = settings(max_examples=200, deadline=None)


@SETTINGS
@given(documents())
def test_paragraphs_are_exact_runs_of_non_blank_lines(source: str) -> None:
    tree = normalize(source)  # normalize() returns result.validate()
    paragraphs = tree.nodes[1:]
    assert [unit.node_id for unit in tree.units] == [node.node_id for node in paragraphs]
    for node, unit in zip(paragraphs, tree.units, strict=True):
        assert node.kind == "paragraph" and node.parent_id == tree.root.node_id
        assert node.spans == (unit.span,)
        assert node.text == unit.span.slice(source)
        assert all(line.strip() for line in LINE_END.split(node.text)), "no blank line inside"
        assert node.start == 0 or source[node.start - 1] in "\r\n", "starts at a line start"
        assert node.end == len(source) or source[node.end] in "\r\n", "ends at a line end"


@SETTINGS
@given(documents())
def test_only_whitespace_is_excluded(source: str) -> None:
    tree = normalize(source)
    assert all(exclusion.reason == "whitespace" for exclusion in tree.exclusions)
    assert all(exclusion.span.slice(source).isspace() for exclusion in tree.exclusions)
    assert tree.retained_characters + tree.excluded_characters == len(source)
    # A separator between two paragraphs always holds a blank line.
    for left, right in zip(tree.units, tree.units[1:], strict=False):
        gap = source[left.span.end : right.span.start]
        assert len(LINE_END.findall(gap)) >= 2


@SETTINGS
@given(documents())
def test_paragraph_count_matches_a_line_by_line_reading(source: str) -> None:
    # An independent, slow reading: split into lines, count runs of non-blank lines.
    runs = 0
    previous_blank = True
    for line in LINE_END.split(source):
        blank = not line.strip()
        if not blank and previous_blank:
            runs += 1
        previous_blank = blank
    assert len(normalize(source).units) == runs


@IN_ANOTHER_PROCESS
@given(documents())
def test_same_tree_in_another_process(source: str) -> None:
    SUBJECT.assert_same_tree_in_another_process(source, hash_seed="4242")
