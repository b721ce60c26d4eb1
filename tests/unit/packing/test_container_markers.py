"""A container's own syntax is never cut from what it opens.

A loose list item owns its ``*``, an RST directive its ``.. note::`` line, a block quote
its ``>``; their content lives in child blocks. Real documents (Python's glossary,
``functions.rst``, ``pickle.rst``: 13 cases in 2,972 chunks) ended chunks with a bare
``*`` — and, at small budgets, made chunks of nothing but ``*`` or ``.. note::`` — when
a unit cut fell between the marker and the item's first paragraph.
"""

from __future__ import annotations

import pytest

from tests.unit.packing._engine_support import last_lines_of_validated_chunks

ITEM = "Item {n} has a first sentence long enough to matter. It goes on for a while here."
LIST = "\n\n".join(f"* {ITEM.format(n=n)}\n\n  A second paragraph of item {n}." for n in range(6))
NOTE = " ".join(f"Sentence {n} of the note body goes here." for n in range(12))

CASES = {
    "markdown-list": (f"# Title\n\nThere are two kinds of argument:\n\n{LIST}\n", "markdown"),
    "rst-list": (f"Title\n=====\n\nThere are two kinds of argument:\n\n{LIST}\n", "rst"),
    "rst-note": (f"Title\n=====\n\nIntro.\n\n.. note::\n\n   {NOTE}\n\n   Another one.\n", "rst"),
    "markdown-quote": (f"# Title\n\nIntro.\n\n> {NOTE}\n>\n> Another one.\n", "markdown"),
}
MARKERS = {"*", ".. note::", ">"}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("budget", range(100, 400, 9))
def test_no_chunk_ends_with_a_bare_marker(case: str, budget: int) -> None:
    content, content_format = CASES[case]
    lasts, _ = last_lines_of_validated_chunks(
        content, content_format, budget, budget - 10, min_preferred_tokens=10
    )
    assert len(lasts) > 1
    for last in lasts:
        assert last not in MARKERS, f"a chunk ends with the bare marker {last!r}"
