"""Sentences as source spans, and the cut selection of the embedding-distance chunker.

LangChain Experimental's ``SemanticChunker`` runs ``re.split(regex, text)`` and later
rejoins sentences with one space, so the whitespace between sentences is lost. Here each
separator match is kept as the tail of the sentence before it: a sentence is
``text[start:end]`` with its words in ``text[start:core_end]``, consecutive sentences
touch, and any run of whole sentences is an exact source slice. Where ``re.split`` would
give an empty or whitespace-only sentence (a separator at the very end or start of the
text, two adjacent matches, a custom regex matching text around blanks) that blank text
joins the neighbouring sentence instead: it carries no meaning to embed, and every chunk
then has words in it. This is the one place where the sentence lists of the two
implementations can differ; capture groups in a custom regex (which ``re.split`` returns
as extra list items) are ignored here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Sentence", "assemble", "sentences", "windows"]


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence: words in ``[start, core_end)``, trailing separator up to ``end``."""

    start: int
    core_end: int
    end: int


def sentences(text: str, pattern: re.Pattern[str]) -> list[Sentence]:
    """The sentences of ``text``: contiguous spans covering it exactly (none if blank)."""
    if not text.strip():
        return []
    found: list[Sentence] = []
    start = 0
    for match in pattern.finditer(text):
        cut, resume = match.start(), match.end()
        if not text[start:cut].strip():
            # No words since the last cut: the blank belongs to the previous sentence (or,
            # at the start of the text, stays at the head of the first one).
            if found:
                found[-1] = Sentence(found[-1].start, found[-1].core_end, resume)
                start = resume
            continue
        found.append(Sentence(start, cut, resume))
        start = resume
    if text[start:].strip():
        found.append(Sentence(start, len(text), len(text)))
    elif found:
        found[-1] = Sentence(found[-1].start, found[-1].core_end, len(text))
    return found


def windows(texts: Sequence[str], buffer_size: int) -> list[str]:
    """Each sentence with ``buffer_size`` neighbours per side, joined by one space.

    The exact strings LangChain's ``combine_sentences`` embeds for the same sentences.
    """
    count = len(texts)
    return [
        " ".join(texts[max(0, index - buffer_size) : min(count, index + buffer_size + 1)])
        for index in range(count)
    ]


def assemble(
    text: str, spans: Sequence[Sentence], cuts: Sequence[int], min_chunk_size: int | None
) -> list[tuple[int, int]]:
    """The chunk ranges for cuts after sentences ``cuts`` (ascending), as LangChain merges.

    A group shorter than ``min_chunk_size`` source characters (from its first sentence's
    start to its last sentence's words' end, separators inside it included) skips the
    cut and grows into the next group; the last group is kept whatever its size. The
    first range starts at 0 and the last ends at ``len(text)``.
    """
    ranges: list[tuple[int, int]] = []
    first = 0
    for cut in cuts:
        size = spans[cut].core_end - spans[first].start
        if min_chunk_size is not None and size < min_chunk_size:
            continue
        ranges.append((spans[first].start, spans[cut].end))
        first = cut + 1
    if first < len(spans):
        ranges.append((spans[first].start, len(text)))
    if ranges:
        ranges[0] = (0, ranges[0][1])
    return ranges
