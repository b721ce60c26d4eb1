"""Fit sentence windows to the embedder's input limit instead of refusing the document.

The seed's default ``sentence_split_regex``, ``(?<=[.?!])\\s+``, cuts only where
whitespace follows the stop directly. Wikipedia-style prose ("... in 1911.[23] The ...",
"... in 1885;[17] Alexander ...") then yields "sentences" of a whole paragraph, and the
window of ``2 * buffer_size + 1`` of them passes the model's input limit (256 word pieces
for all-MiniLM-L6-v2). LangChain embeds such a window anyway and the model silently
drops its end; refusing the whole document is no better. So, only for the windows over
the limit, and each step only where the previous one did not suffice:

1. the window's sentences are re-split at sentence-like ends the regex missed: a stop
   (``.?!;``) followed by closing quotes/brackets and citation markers (``[23]``,
   ``[a]``, ``[23]: 105``), then whitespace, and at line breaks;
2. a sentence that alone is still over the limit is cut at the last word boundary that
   fits (at a character only when one "word" is over the limit: a hostile blob);
3. a window still over the limit takes fewer neighbours (``buffer_size`` shrinks for that
   window only, symmetrically) until it fits, which it does at zero by step 2.

Every sentence stays an exact source slice (the pieces of a split sentence touch), so
chunks remain exact slices; splitting never makes a window longer, so a window that fit
still fits. A document whose windows all fit is untouched, and its cuts stay LangChain's.
What was done is returned as ``FitReport`` counts (no text), for the caller to record.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from fastrag.ingestion.steps.chunking._semantic_sentences import Sentence

__all__ = ["FitReport", "FittedSentences", "fit_windows"]

_SENTENCE_LIKE: Final = re.compile(
    r"(?:[.?!;][\"'”’)\]]*(?:\[[^\[\]\n]{1,24}\])*(?::\s?\d+(?:[–-]\d+)?)?|(?<=\S)(?=\n))(\s+)(?=\S)"
)
"""A sentence-like end the default regex misses; group 1 is the separator after it."""
_WORD_GAP: Final = re.compile(r"\s+")
_CHARS_PER_TOKEN: Final = 32
"""Bound of the character search for a piece of one over-long "word" (see below)."""

Count = Callable[[Sequence[str]], list[int]]
"""Counts texts in the model's own tokens (special tokens included), one call per batch."""


@dataclass(frozen=True, slots=True)
class FitReport:
    """What fitting changed in one document (all zero when every window fit)."""

    resplit_sentences: int = 0
    """Sentences re-split at sentence-like ends (step 1)."""
    word_split_sentences: int = 0
    """Sentences still over the limit alone, cut at word boundaries (step 2)."""
    narrowed_windows: int = 0
    """Windows embedded with fewer neighbours than ``buffer_size`` (step 3)."""

    @property
    def changed(self) -> bool:
        """Whether any window differs from the plain algorithm's."""
        return bool(self.resplit_sentences or self.word_split_sentences or self.narrowed_windows)


@dataclass(frozen=True, slots=True)
class FittedSentences:
    """The sentences to cut between and the window text embedded for each of them."""

    spans: tuple[Sentence, ...]
    windows: tuple[str, ...]
    report: FitReport


def _joined(texts: Sequence[str], index: int, buffer_size: int) -> str:
    """Sentence ``index`` with ``buffer_size`` neighbours per side (LangChain's join)."""
    return " ".join(texts[max(0, index - buffer_size) : index + buffer_size + 1])


def fit_windows(
    content: str,
    spans: Sequence[Sentence],
    buffer_size: int,
    count: Count,
    limit: int,
) -> FittedSentences:
    """Sentences and windows of ``content`` whose every window counts at most ``limit``."""
    texts = [content[s.start : s.core_end] for s in spans]
    windows = [_joined(texts, i, buffer_size) for i in range(len(texts))]
    over = [i for i, n in enumerate(count(windows)) if n > limit]
    if not over:
        return FittedSentences(tuple(spans), tuple(windows), FitReport())
    involved = {j for i in over for j in range(max(0, i - buffer_size), i + buffer_size + 1)}
    fitted: list[Sentence] = []
    resplit = word_split = 0
    for index, span in enumerate(spans):
        if index not in involved:
            fitted.append(span)
            continue
        pieces = _resplit(content, span)
        resplit += len(pieces) > 1
        lengths = count([content[p.start : p.core_end] for p in pieces])
        for piece, length in zip(pieces, lengths, strict=True):
            if length <= limit:
                fitted.append(piece)
                continue
            word_split += 1
            fitted.extend(_word_split(content, piece, count, limit))
    texts = [content[s.start : s.core_end] for s in fitted]
    windows = [_joined(texts, i, buffer_size) for i in range(len(texts))]
    counts = count(windows)
    narrowed = 0
    for index, length in enumerate(counts):
        width = buffer_size
        while length > limit and width > 0:
            width -= 1
            windows[index] = _joined(texts, index, width)
            length = count([windows[index]])[0]
        narrowed += width < buffer_size
    return FittedSentences(tuple(fitted), tuple(windows), FitReport(resplit, word_split, narrowed))


def _resplit(content: str, span: Sentence) -> list[Sentence]:
    """``span`` cut after each sentence-like end inside its words (step 1)."""
    pieces: list[Sentence] = []
    start = span.start
    for match in _SENTENCE_LIKE.finditer(content, span.start, span.core_end):
        cut, resume = match.start(1), match.end(1)
        if content[start:cut].strip():
            pieces.append(Sentence(start, cut, resume))
            start = resume
    pieces.append(Sentence(start, span.core_end, span.end))
    return pieces


def _word_split(content: str, span: Sentence, count: Count, limit: int) -> list[Sentence]:
    """``span`` as consecutive pieces each within ``limit`` (step 2).

    Each piece is the longest run of whole words that fits, found by bisection over the
    word gaps. A word costs at least one token, so only the next ``limit`` gaps can end
    a piece: every count is of at most ``limit`` words, which keeps a hostile sentence
    of a million words linear. Only a first word over the limit is cut at characters.
    """
    gaps = [(m.start(), m.end()) for m in _WORD_GAP.finditer(content, span.start, span.core_end)]
    starts = [low for low, _ in gaps]
    pieces: list[Sentence] = []
    start = span.start
    while True:
        first = bisect.bisect_right(starts, start)
        if len(gaps) - first < limit and count([content[start : span.core_end]])[0] <= limit:
            pieces.append(Sentence(start, span.core_end, span.end))
            return pieces
        usable = gaps[first : first + limit]
        low, high = 0, len(usable)  # usable[:low] fit as ends; usable[high:] do not
        while low < high:
            middle = (low + high) // 2
            if count([content[start : usable[middle][0]]])[0] <= limit:
                low = middle + 1
            else:
                high = middle
        if low > 0:
            cut, resume = usable[low - 1]
        else:
            end = usable[0][0] if usable else span.core_end
            cut = resume = _character_cut(content, start, end, count, limit)
        pieces.append(Sentence(start, cut, resume))
        start = resume


def _character_cut(content: str, start: int, end: int, count: Count, limit: int) -> int:
    """The end of the longest prefix of ``content[start:end]`` within ``limit`` (>= 1 char).

    Searched within ``limit * _CHARS_PER_TOKEN`` characters: a longer fitting prefix is
    possible in theory, but a shorter piece is still a valid one, and each count stays
    bounded however long the "word" is.
    """
    low, high = start + 1, min(end, start + limit * _CHARS_PER_TOKEN)
    while low < high:
        middle = (low + high + 1) // 2
        if count([content[start:middle]])[0] <= limit:
            low = middle
        else:
            high = middle - 1
    return low
