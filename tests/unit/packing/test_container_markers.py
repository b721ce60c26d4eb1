"""A container's own syntax is never cut from what it opens.

A loose list item owns its ``*``, an RST directive its ``.. note::`` line, a block quote
its ``>``; their content lives in child blocks. Real documents (Python's glossary,
``functions.rst``, ``pickle.rst``: 13 cases in 2,972 chunks) ended chunks with a bare
``*`` — and, at small budgets, made chunks of nothing but ``*`` or ``.. note::`` — when
a unit cut fell between the marker and the item's first paragraph.
"""

from __future__ import annotations

import pytest

from fastrag.ingestion.steps.chunking.structure import StructureAwareChunker
from fastrag.models import Document
from fastrag.normalization import NormalizerRegistry
from fastrag.packing.validator import validate_structure_chunks
from fastrag.tokenization import Utf8ByteTokenizer

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
    chunker = StructureAwareChunker(
        tokenizer=Utf8ByteTokenizer(),
        max_tokens=budget,
        target_tokens=budget - 10,
        min_preferred_tokens=10,
        cache=False,
    )
    document = Document("m", "m", content, {"content_format": content_format})
    pieces = [piece for piece in chunker.split(document) if not isinstance(piece, str)]
    assert len(pieces) > 1
    for text, _ in pieces:
        last = text.rstrip().splitlines()[-1].strip()
        assert last not in MARKERS, f"a chunk ends with the bare marker {last!r}: {text!r}"
    normalized = NormalizerRegistry().get(content_format).normalize(document)
    report = validate_structure_chunks(
        normalized, pieces, Utf8ByteTokenizer(), budget, min_preferred_tokens=10
    )
    assert report.classification == "chunked"
