"""Hypothesis strategies for plain-text sources.

Paragraphs of lines with leading and trailing spaces, separated by blank lines that may
hold spaces and tabs, with ``\\n``, ``\\r\\n`` and ``\\r`` line ends mixed freely, plus the
characters that break naive splitters: NUL, lone surrogates, form feeds, non-breaking and
other Unicode spaces, U+2028, combining marks, emoji.
"""

from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["documents", "line"]

_ODD = [
    "\x00",
    "\ud800",
    "\udfff",
    "\x0c",
    "\x0b",
    "\u00a0",
    "\u2028",
    "\u3000",
    "\u0301",
    "🍐",
    "\x85",
    "\t",
]
_CHARACTERS = st.one_of(
    st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\r\n"),
    st.sampled_from(_ODD),
)
_LINE_ENDS = st.sampled_from(["\n", "\r\n", "\r"])


def line() -> st.SearchStrategy[str]:
    """One line without its line end; may be blank."""
    return st.one_of(
        st.text(_CHARACTERS, max_size=30),
        st.sampled_from(["", " ", "\t ", "   indented", "trailing   ", "Ge1:1 In the beginning"]),
    )


@st.composite
def documents(draw: st.DrawFn) -> str:
    """A whole text source: lines with mixed line ends; may be empty or all blank."""
    lines = draw(st.lists(line(), max_size=12))
    parts = [text + draw(_LINE_ENDS) for text in lines]
    text = "".join(parts)
    if parts and draw(st.booleans()):
        text = text.rstrip("\r\n")
    return text
