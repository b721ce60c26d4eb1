"""Properties of HtmlNormalizer over generated nasty HTML (tests/strategies/html)."""

from __future__ import annotations

import html
import re

from hypothesis import example, given
from hypothesis import strategies as st

from fastrag.normalization.formats.html import HtmlNormalizer
from tests.property import _normalizer_checks as checks
from tests.strategies.html import CODE_HEADING_LIKE, documents

SUBJECT = checks.NormalizerUnderTest(HtmlNormalizer, "html")
normalize = SUBJECT.normalize
LEAVES = {"paragraph", "heading", "code", "table_row", "definition_term", "caption"}
HTML_WHITESPACE = set(" \t\n\r\f")
MARKS_MAIN = re.compile(r"<(?:main|article)\b|\brole\s*=\s*[\"']?main\b", re.IGNORECASE)


def shown(source_text: str) -> str:
    """How a one-to-one map run shows its source: HTML whitespace as spaces."""
    return source_text.translate(str.maketrans("\t\n\r\f", "    "))


@checks.GENERATED
@given(documents())
def test_tree_validates_and_maps_round_trip(source: str) -> None:
    tree = normalize(source)  # normalize() returns result.validate()
    assert tree.content is source or tree.content == source
    units_of: dict[str, list[tuple[int, int]]] = {}
    for unit in tree.units:
        node = tree.node(unit.node_id)
        assert node.kind in LEAVES, node.kind
        assert node.start <= unit.span.start and unit.span.end <= node.end
        units_of.setdefault(node.node_id, []).append((unit.span.start, unit.span.end))
    for node in tree.nodes:
        if node.kind not in LEAVES:
            assert not node.serialization
            continue
        assert node.node_id in units_of, "every leaf owns source"
        display_end = source_end = -1
        for run in node.serialization:
            assert display_end <= run.display_start < run.display_end <= len(node.text)
            assert source_end <= run.source_start < run.source_end
            display_end, source_end = run.display_end, run.source_end
            assert any(
                s <= run.source_start and run.source_end <= e for s, e in units_of[node.node_id]
            )
            shows = node.text[run.display_start : run.display_end]
            renders = source[run.source_start : run.source_end]
            # A heading shows a no-break space as a space (its text is the section title).
            heading = node.kind == "heading"
            if run.verbatim:
                assert shows == (renders if node.kind == "code" else shown(renders))
            elif renders.startswith("&"):
                unescaped = html.unescape(renders)
                assert shows == (unescaped.replace("\xa0", " ") if heading else unescaped)
            else:
                spaces = HTML_WHITESPACE | ({"\xa0"} if heading else set())
                assert shows == " " and set(renders) <= spaces


@checks.GENERATED
@given(documents())
# An outside-main heading of image alt text only, dropped as chrome: the rest of the
# <img> tag after its excluded alt text is markup, as after an alt text unit.
@example('<h1><img src=p.png alt="a pear"></h1> <article><h1>pear </h1></article> ')
@example("<h1><b>bold</b> &nbsp; </h1> ")
def test_exclusions_are_what_they_claim(source: str) -> None:
    tree = normalize(source)
    # Where text ends (shown, or excluded as chrome): inside a tag (alt text), the rest
    # of the tag follows as markup.
    unit_ends = {unit.span.end for unit in tree.units} | {
        e.span.end for e in tree.exclusions if e.reason in ("boilerplate", "ui_control")
    }
    for exclusion in tree.exclusions:
        text = exclusion.span.slice(source).lower()
        reason = exclusion.reason
        if reason == "whitespace":  # spacing between blocks, &nbsp; spacers included
            assert not html.unescape(text).strip()
        elif reason in ("script", "style", "template", "noscript"):
            assert text.startswith("<" + reason)
        elif reason == "comment":
            assert text.startswith("<")
        elif reason == "boilerplate":  # an element, or text outside a marked main region
            assert text.startswith("<") or MARKS_MAIN.search(source) is not None
        elif reason == "ui_control":  # a <button>'s text
            assert "<button" in source[: exclusion.span.end].lower()
        elif reason == "front_matter":
            assert "<title>" in source[: exclusion.span.start].lower()
        else:
            assert reason == "markup", reason
            assert text.startswith("<") or exclusion.span.start in unit_ends


@checks.GENERATED
@given(documents())
def test_lineage_spans_nest_and_sections_follow_levels(source: str) -> None:
    tree = normalize(source)
    checks.assert_lineage(tree, spanless_parents=False, consecutive_levels=False)
    for node in tree.nodes[1:]:
        parent = tree.node(node.parent_id or "")
        if node.kind == "list_item":
            assert parent.kind == "list"
        if node.kind == "table_row":
            assert parent.kind == "table"
            assert "\n" not in node.text.split("\n|")[0]


@checks.GENERATED
@given(documents())
def test_code_script_and_comments_never_make_headings(source: str) -> None:
    tree = normalize(source)
    hidden = [(node.start, node.end) for node in tree.nodes if node.kind == "code"]
    hidden += [
        (e.span.start, e.span.end)
        for e in tree.exclusions
        if e.reason in ("script", "style", "template", "noscript", "comment")
    ]
    for heading in (node for node in tree.nodes if node.kind == "heading"):
        assert heading.text.strip()
        for start, end in hidden:
            assert not (start <= heading.start and heading.end <= end)


@checks.GENERATED
@given(st.lists(st.sampled_from(CODE_HEADING_LIKE), min_size=1, max_size=4))
def test_heading_like_text_in_pre_stays_code(lines: list[str]) -> None:
    source = "<h1>Real</h1>\n<pre>" + "\n".join(lines) + "</pre><p>tail</p>"
    code = checks.only_real_heading_and_one_code(normalize(source))
    for line in lines:
        assert html.unescape(re.sub(r"<[^>]*>", "", line)) in code.text


@checks.IN_ANOTHER_PROCESS
@given(documents())
def test_same_tree_in_another_process(source: str) -> None:
    SUBJECT.assert_same_tree_in_another_process(source)
