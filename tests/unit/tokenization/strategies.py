"""Hypothesis strategies for tokenizer tests: text that stresses pre-tokenizers.

The alphabet mixes what makes BPE and WordPiece boundaries interesting: letters next to
punctuation, contractions, digit runs, every kind of whitespace (tabs, CR, NBSP, line
separator), combining marks, CJK and emoji (multibyte, split across byte tokens).
"""

from __future__ import annotations

import string

from hypothesis import strategies as st

PIECES = (
    *string.ascii_letters[:8],
    "Z",
    *string.digits[:5],
    *string.punctuation,
    " ",
    "  ",
    "\n",
    "\n\n",
    "\r\n",
    "\t",
    "\u00a0",
    "\u2028",
    "é",
    "e\u0301",
    "ß",
    "Ω",
    "中",
    "文",
    "😀",
    "👩\u200d💻",
    "'s",
    "'ll",
    "word",
    " the",
    "<|endoftext|>",
    "```",
    "- ",
    "# ",
)

texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
"""Short texts drawn from the stress alphabet."""

any_texts = st.one_of(texts, st.text(max_size=60))
"""Stress texts or arbitrary Unicode (without surrogates)."""

WORDS = ("the", "Packing", "chunk", "tokens", "naïve", "中文", "x2", "API", "`code`", "42")
ENDINGS = ("", ".", ",", ":", "!", "?", ")", "**", "`", '."', ".)", ";")


@st.composite
def markdown_leaf(draw: st.DrawFn) -> str:
    """One Markdown-like block: a heading, list item, quote or paragraph, no outer space."""
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12))
    prefix = draw(st.sampled_from(("", "# ", "## ", "- ", "1. ", "> ")))
    return prefix + " ".join(words) + draw(st.sampled_from(ENDINGS))


markdown_leaves = st.lists(markdown_leaf(), min_size=2, max_size=6)
"""Consecutive Markdown blocks, to be joined by blank lines."""
