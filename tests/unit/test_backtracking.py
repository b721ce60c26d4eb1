"""Hostile text that made a pattern backtrack for minutes or more now takes milliseconds.

Each case is a document (or line) built to defeat one pattern the way an attacker, or an
unlucky README, would: a run the pattern could split in many ways, then a character that
makes the match fail. Before the fixes the exponential cases would have run for longer
than the age of the universe and the quadratic ones for minutes (extrapolated from
smaller sizes); they now take at most a few seconds, most of it the tokenizer.

Each case runs in a forked child with a generous limit, so a regression fails with the
case's name instead of hanging the suite. The limit is no speed target: it is about ten
times what the slowest case needs here.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable

import pytest

from fastrag.exceptions import ChunkingError
from fastrag.ingestion.steps.chunking.heading import HeadingChunker
from fastrag.ingestion.steps.chunking.structure import StructureAwareChunker
from fastrag.ingestion.steps.parsing import _pdf_joints, _pdf_lines
from fastrag.ingestion.steps.parsing._pdf_layout import Box, Line
from fastrag.ingestion.steps.parsing._pdf_navigation import entry_kind
from fastrag.models import Document
from fastrag.normalization.formats.markdown import MarkdownNormalizer
from fastrag.normalization.formats.rst import RstNormalizer

_LIMIT_SECONDS = 45


def _markdown(source: str) -> None:
    MarkdownNormalizer().normalize(Document("d", "t", source, {"content_format": "markdown"}))


def _headings(source: str) -> None:
    list(HeadingChunker().split(Document("d", "t", source, {"content_format": "markdown"})))


def _code_of_blank_lines() -> None:
    # cl100k reads the run as one pre-token, so no cut is allowed in it: the chunker
    # refuses the block with its clear error, after looking for a cut in linear time.
    source = "```\nx\n" + " \n" * 300_000 + "```\n"
    document = Document("d", "t", source, {"content_format": "markdown"})
    with pytest.raises(ChunkingError, match="cannot be packed within max_tokens"):
        list(StructureAwareChunker(cache=False).split(document))


def _directive_marker() -> None:
    # The marker pattern reads a directive's name once, not split two ways at each letter.
    from fastrag.normalization.formats._rst_text import MARKERS

    assert MARKERS["directive"].match(".. " + "a" * 200_000 + "\n") is None


def _wide_table() -> None:
    # docutils scans a table's whole line for each of its cells: kept as text instead.
    columns = 20_000
    source = "x\n\n" + "=== " * columns + "\n" + "a   " * columns + "\n" + "=== " * columns + "\n"
    tree = RstNormalizer().normalize(Document("d", "t", source, {"content_format": "rst"}))
    assert "too wide to parse" in tree.diagnostics[0]


def _pdf_row(text: str, *, hyphenated: bool = False) -> Line:
    box = Box(10.0, 10.0, 500.0, 20.0)
    return Line(text, box, 10.0, False, False, hyphenated, (text,), (box,), 20.0)


def _long_path_argument() -> None:
    source = ".. unknown-directive:: " + "a/" * 1_000_000 + " b\n"  # read by the generic handler
    RstNormalizer().normalize(Document("d", "t", source, {"content_format": "rst"}))


CASES: dict[str, Callable[[], None]] = {
    # A README's nested table of contents whose last item links elsewhere (ts-node's).
    "contents list": lambda: _markdown("* [a](#a)\n" + "    * [a](#a)\n" * 40 + "* [b](x)\n"),
    "front matter title with a run of tabs": lambda: _markdown(
        "---\ntitle: a" + "\t" * 300_000 + "b\n---\n\nText.\n"
    ),
    "heading of unclosed comments": lambda: _markdown("<h1>" + "<!-- " * 60_000 + "x</h1>\n"),
    "comments block": lambda: _markdown("<!-- a -->" * 60 + "x\n"),
    "mdx import of tabs": lambda: _markdown("import" + "\t" * 20_000 + "'m' x\n"),
    "container fence of tabs": lambda: _markdown(":::" + "\t" * 200_000 + "\nx\n"),
    "heading with a run of spaces": lambda: _markdown("# a" + " " * 400_000 + "b {x\n"),
    "markers before a fence": lambda: _headings("-    " * 40 + "x\n"),
    "heading of unclosed emphasis": lambda: _headings("# " + "_a *b [c **d " * 100_000 + "\n"),
    "closing hashes after tabs": lambda: _headings("# a" + "\t" * 200_000 + "#x\n"),
    "code block of blank lines": _code_of_blank_lines,
    "dot leader after spaces": lambda: _pdf_lines._shorten("x" + " " * 500_000 + ". . . .", False),
    "directive argument of slashes": _long_path_argument,
    "table of 20,000 columns": _wide_table,
    "directive name without its colons": _directive_marker,
    "index entry of one endless word": lambda: entry_kind(_pdf_row("a," * 100_000 + "x")),
    "hyphenated row of one endless word": lambda: _pdf_joints._split_word(
        _pdf_row("a" * 300_000 + ".", hyphenated=True), _pdf_row("b")
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_input_is_read_without_backtracking(name: str) -> None:
    child = multiprocessing.get_context("fork").Process(target=CASES[name])
    child.start()
    child.join(_LIMIT_SECONDS)
    if child.is_alive():
        child.kill()
        child.join()
        raise AssertionError(f"{name}: still running after {_LIMIT_SECONDS} s")
    assert child.exitcode == 0, f"{name}: the child failed (exit code {child.exitcode})"
