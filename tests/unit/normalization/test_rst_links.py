"""``links_in``: the scan without named targets finds exactly what the full scan finds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.normalization.formats import _rst_text
from fastrag.normalization.formats._rst_text import links_in

# Pieces that make every alternative match, half-match and overlap: backquotes, angle
# brackets, trailing underscores, URL schemes, words with dots and dashes.
PIECES = st.sampled_from(
    [
        "`",
        "``",
        "_",
        "__",
        "<",
        ">",
        "://",
        "http",
        "https://a.b",
        "ftp",
        "word",
        "a.b-c",
        " ",
        "\n",
        ":",
        "/",
        ".",
        "x_",
        "`ref`_",
        "`t <u>`_",
        "`t <ref_>`__",
        "9",
    ]
)


def _scan_all(text: str) -> tuple[tuple[str, str], ...]:
    """What the four-way pattern finds when no name resolves (the scan before the
    unnamed pattern existed)."""
    if "`" in text:
        text = _rst_text._INLINE_LITERAL.sub(" ", text)
    found = []
    for match in _rst_text._LINK.finditer(text):
        if match.lastgroup == "url":
            found.append((match.group("url"), match.group("url")))
        elif match.lastgroup == "uri":
            uri = re.sub(r"\s+", "", match.group("uri"))
            if uri.endswith("_") and not uri.endswith("\\_"):
                continue
            found.append((re.sub(r"\s+", " ", match.group("phrase")).strip() or uri, uri))
    return tuple(dict.fromkeys(found))


@settings(max_examples=500, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_without_targets_the_unnamed_scan_equals_the_full_scan(text: str) -> None:
    assert links_in(text, {}) == _scan_all(text)


def test_named_references_resolve_only_through_targets() -> None:
    text = "see word_ and `two words`_ and `x <https://e.org>`_ or http://a.org/b."
    assert links_in(text, {}) == (("x", "https://e.org"), ("http://a.org/b", "http://a.org/b"))
    targets = {"word": "https://w.org", "two words": "https://t.org"}
    assert links_in(text, targets) == (
        ("word", "https://w.org"),
        ("two words", "https://t.org"),
        ("x", "https://e.org"),
        ("http://a.org/b", "http://a.org/b"),
    )
