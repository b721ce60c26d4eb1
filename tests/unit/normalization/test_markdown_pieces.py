"""Large Markdown parsed in pieces (``_markdown_segments``) gives the tree of one parse.

The pieces are made tiny here (a few dozen characters) so that short generated documents
are cut many times, at every kind of place a cut could go wrong: inside fences and HTML
blocks, between a link and its definition, between a footnote and its definition.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.models import Document
from fastrag.normalization import NormalizedDocument
from fastrag.normalization.formats import _markdown_segments as segments
from fastrag.normalization.formats.markdown import MarkdownNormalizer

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus"

_BLOCKS = [
    "# Title",
    "## Usage",
    "### Deep [link][ref] heading",
    "Plain paragraph with a [reference link][ref] and [shortcut].",
    "A [collapsed][] one, [Ref] in another case, and [undefined][nowhere].",
    "[ref]: https://example.org/ref 'Title'",
    "[shortcut]: /short",
    "[collapsed]: </a b>",
    "[ref]: https://example.org/second-definition-is-ignored",
    "```bash\n# not a heading\n\n# still code\n```",
    "~~~~\n```\n\n# inside a tilde fence\n~~~~",
    "  ```\n  indented fence\n\n# heading ends nothing here?\n  ```",
    "```\nfence left open\n\n# swallowed",
    "<pre>\npreformatted\n\n# inside pre\n</pre>",
    "<!-- comment\n\n# inside a comment\n-->",
    "<div>\nhtml block\n</div>",
    "- item one\n- item two\n\n  continued\n- [x] task",
    "1. first\n2. second\n\n   ```\n   code in item\n\n# after item code\n   ```",
    "> quoted\n> > nested\n\n# after quote",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "Text with a footnote[^1] and another[^Note].",
    "[^1]: The footnote.",
    "[^note]: Defined in another case.",
    "Regex [^a-z] is not a footnote.",
    "Setext heading\n==============",
    "    indented code\n\n    # still indented code",
    "***",
    "Ünïcödé paragraph — with ☃ and 𝄞.",
    "Line one\r\nline two\r\n\r\n# crlf heading",
    "<script>\nlet x = 1;\n\n# inside script",
    "<?php echo 1;\n\n# inside processing instruction ?>",
    "<!DOCTYPE html\n\n# inside declaration>",
    "<![CDATA[\nraw\n\n# inside cdata\n]]>",
    "<custom-tag>\ntype seven",
    "<table><tr><td>\ntype six\n</td></tr></table>",
    "> [quoted]: /in-quote\n> uses [quoted]",
    "Uses [the  Docs] and [STRASSE] and [quoted].",
    "[the docs]: /spaces\n[straße]: /eszett",
    "[multi]:\n/url\n'title on\nlines'",
    "Lazy\ncontinuation\n# not lazy",
    "Broken surrogate \ud800 text",
    "```\n[^1]: a definition in code is none\n```",
    "> [^q]: a definition in a quote\n\nUses [^Q] and [^q].",
]


def _normalize(text: str, size: int | None) -> NormalizedDocument:
    document = Document("doc", "src", text, {"content_format": "markdown"})
    if size is None:
        return MarkdownNormalizer().normalize(document)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(segments, "plan", functools.partial(segments.plan, size=size))
        return MarkdownNormalizer().normalize(document)


def _same(pieced: NormalizedDocument, whole: NormalizedDocument) -> None:
    assert pieced.nodes == whole.nodes
    assert pieced.units == whole.units
    assert pieced.exclusions == whole.exclusions
    assert pieced.diagnostics == whole.diagnostics


class _Spy:
    """Counts how ``pieces`` ended: every piece walked, or a cut refused."""

    def __init__(self) -> None:
        self.walked = self.refused = 0
        self.original = segments.pieces

    def __call__(self, *args: Any) -> Iterator[tuple[int, Any, Any, Any]]:
        for base, events, overrides, check in self.original(*args):
            yield base, events, overrides, self._counted(check)
        self.walked += 1

    def _counted(self, check: Callable[..., None]) -> Callable[..., None]:
        def counted(*args: Any) -> None:
            try:
                check(*args)
            except segments.UnsplittableError:
                self.refused += 1
                raise

        return counted


def _pieced(text: str, size: int) -> tuple[NormalizedDocument, _Spy]:
    """``text`` normalized in pieces of ``size`` (checked equal to the whole parse's
    tree), and how the pieces went."""
    spy = _Spy()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(segments, "pieces", spy)
        pieced = _normalize(text, size)
    _same(pieced, _normalize(text, None))
    return pieced, spy


@settings(max_examples=500, deadline=None)
@given(
    blocks=st.lists(st.sampled_from(_BLOCKS), min_size=1, max_size=25),
    separators=st.lists(st.sampled_from(["\n\n", "\n\n\n", "\n", "\n \n"]), min_size=25),
    size=st.integers(min_value=1, max_value=120),
)
def test_pieces_give_the_tree_of_one_parse(
    blocks: list[str], separators: list[str], size: int
) -> None:
    text = "".join(block + separator for block, separator in zip(blocks, separators, strict=False))
    _same(_normalize(text, size), _normalize(text, None))


def test_a_cut_inside_a_block_is_refused_and_the_document_parsed_whole() -> None:
    # Indented fences are invisible to the plan's fence count: the cut before
    # "# swallowed" lands inside the fence, and the piece before it ends open.
    filler = "Paragraph text.\n\n" * 20
    text = f"{filler}  ```\n  code\n\n# swallowed\n\n  ```\n\n{filler}# After\n\n{filler}"
    pieced, spy = _pieced(text, 100)
    assert spy.refused == 1 and spy.walked == 0
    assert not any(node.text == "swallowed" for node in pieced.nodes)


def test_plan_cuts_before_headings_and_never_between_a_footnote_and_its_definition() -> None:
    body = "word " * 40
    text = f"{body}\n\n# One\n\n{body}[^n]\n\n# Two\n\n{body}\n\n[^N]: note\n\n# Three\n\n{body}"
    starts = segments.plan(text, 50)
    assert starts is not None and starts[0] == 0
    assert all(text.startswith("# ", start) for start in starts[1:])
    one, two, _three = (text.index(f"# {name}") for name in ("One", "Two", "Three"))
    assert one in starts and two not in starts
    assert segments.plan(text, len(text)) is None  # small documents are parsed whole


def test_plan_skips_a_heading_after_an_odd_number_of_fences() -> None:
    body = "word " * 40
    text = f"{body}\n\n```\n{body}\n\n# comment\n\n```\n\n# Real\n\n{body}\n\n# End\n\n{body}"
    starts = segments.plan(text, 50)
    assert starts is not None
    assert text.index("# comment") not in starts and text.index("# Real") in starts


def test_a_label_defined_again_in_a_later_piece_keeps_its_first_target() -> None:
    # The second piece's parse resolves [ref] to its own [REF] definition; the whole
    # document resolves every [ref] to the first one, and so must the pieces.
    body = "Uses [ref] and ![image][ref] here. " * 10
    text = f"{body}\n\n[ref]: /first\n\n# Next\n\n{body}\n\n[REF]: /second\n\n# Last\n\n{body}"
    pieced, spy = _pieced(text, 60)
    assert spy.walked == 1
    targets = {
        target
        for node in pieced.nodes
        for key in ("links", "images")
        for _text, target in node.attributes.get(key, ())
    }
    assert targets == {"/first"}


def test_links_resolve_to_definitions_of_other_pieces() -> None:
    body = "Filler sentence here. " * 10
    text = f"See [the docs][docs].\n\n{body}\n\n# Middle\n\n{body}\n\n# End\n\n[Docs]: /d 'T'\n"
    pieced, spy = _pieced(text, 60)
    assert spy.walked == 1
    assert pieced.nodes[1].attributes["links"] == (("the docs", "/d"),)


@pytest.mark.parametrize("path", sorted(CORPUS.rglob("*.md")), ids=lambda path: path.name)
def test_real_documents_cut_small_give_the_same_tree(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    _pieced_tree, spy = _pieced(text, 2_000)
    assert spy.walked + spy.refused == (segments.plan(text, 2_000) is not None)


def test_a_footnote_whose_only_definition_is_in_another_piece_is_parsed_whole() -> None:
    # The plan keeps [^n] with its nearest "[^n]:", which is code, not a definition; the
    # real one is past the cut. The walked pieces show it: the document is parsed whole.
    body = "Some words here. " * 8
    text = (
        f"{body}[^n] cited.\n\n```\n[^n]: looks like one, is code\n```\n\n"
        f"# Cut\n\n{body}\n\n[^n]: The real note.\n"
    )
    assert text.index("# Cut") in (segments.plan(text, 60) or [])
    pieced, spy = _pieced(text, 60)
    assert spy.refused == 1
    assert pieced.nodes[1].attributes["footnotes"] == ("n",)


class _CountingText(str):
    """A str that adds up how many characters ``count`` scans."""

    scanned = 0

    def count(self, sub: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        low = 0 if start is None else start
        high = len(self) if end is None else end
        type(self).scanned += max(high - low, 0)
        return super().count(sub, start, end)


def test_planning_reads_the_text_a_bounded_number_of_times() -> None:
    # An unmatched fence near the start makes every later heading look fenced: each
    # candidate used to recount from the piece's start, quadratic in the headings.
    section = "# Heading\n\nSome text under it.\n\n"
    text = _CountingText("Intro.\n```\nunclosed\n\n" + section * 20_000)
    _CountingText.scanned = 0
    assert segments.plan(text, 1_000) is None  # never a cut inside the open fence
    assert _CountingText.scanned <= 2 * len(text)


def test_a_document_read_in_pieces_keeps_no_utf8_copy_of_itself() -> None:
    # The parser reads a str as UTF-8, which CPython caches on the str (and counts in its
    # size). Read whole for its link definitions, a 10 MB non-ASCII document kept a 10
    # MB copy of itself alive after normalization: 1x the input of peak memory.
    text = "".join(
        f"# Überschrift {number}\n\nText mit Umlauten — see [ref{number}].\n\n"
        f"[ref{number}]: https://example.org/{number}\n\n"
        for number in range(200)
    )
    size = sys.getsizeof(text)
    tree = _normalize(text, 500)
    assert sys.getsizeof(text) == size
    assert tree.content is text
    assert len([node for node in tree.nodes if node.kind == "heading"]) == 200
    _same(tree, _normalize(text[:], None))


def test_a_label_defined_three_times_is_three_definitions_whole_or_in_pieces() -> None:
    # Found by the property test: each pyromark pass reports a label once, so the third
    # definition was kept as a paragraph by the whole parse ("no parsed block covers the
    # source") while reading the pieces one at a time found it.
    definition = "[ref]: https://example.org/ref 'Title'"
    text = f"{definition}\n\n# Title\n\n{definition}\n\n{definition}\n\n"
    whole = _normalize(text, None)
    assert [e.span.slice(text) for e in whole.exclusions if e.reason == "link_definition"] == [
        definition
    ] * 3
    assert not whole.diagnostics
    _same(_normalize(text, 1), whole)
