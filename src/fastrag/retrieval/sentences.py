"""A chunk's sentences, to score a chunk by its best sentence too (``embed = "fuse_sentences"``).

Why: all-MiniLM-L6-v2 mean-pools, so a chunk's vector is the average of everything in
it, and a question about one fact in a 120-word-piece chunk matches a chunk *about* that
topic about as well as the chunk that states the fact. A sentence's own vector is not
diluted. Scoring a chunk by its best sentence as well as by its whole text and its
context window ranks the stating chunk higher without returning anything but the chunk.

The sentences are the packer's own (``fastrag.packing.split.prose.SENTENCE_END``:
terminal punctuation, optional closing quotes or brackets, then whitespace; CJK stops),
further cut at line breaks, so a list item, a table row or a chat line counts as one.
Pieces are stripped; empty ones are dropped; a chunk with no piece is its own sentence.
Nothing here reads questions or references.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from fastrag.packing.split.prose import SENTENCE_END

__all__ = ["SentenceIndex", "chunk_sentences"]


def chunk_sentences(text: str) -> list[str]:
    """``text``'s sentences and lines, stripped, in order (``[text]`` if none)."""
    cuts = [0]
    for match in SENTENCE_END.finditer(text):
        group = 1 if match.start(1) >= 0 else 2
        cuts.append(match.end(group))
    cuts.append(len(text))
    found = [
        line.strip()
        for start, end in itertools.pairwise(cuts)
        for line in text[start:end].split("\n")
    ]
    return [sentence for sentence in found if sentence] or [text]


class SentenceIndex:
    """Every chunk's sentences as one flat list, with the chunk each belongs to.

    ``owners`` is non-decreasing (chunk order) and every chunk owns at least one
    sentence, so a per-chunk maximum is one ``numpy.maximum.reduceat`` over ``starts``.
    """

    __slots__ = ("owners", "starts", "texts")

    def __init__(self, chunks: Sequence[str]) -> None:
        self.texts: list[str] = []
        self.owners: list[int] = []
        self.starts: list[int] = []
        for number, chunk in enumerate(chunks):
            self.starts.append(len(self.texts))
            pieces = chunk_sentences(chunk)
            self.texts.extend(pieces)
            self.owners.extend([number] * len(pieces))
