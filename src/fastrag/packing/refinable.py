"""Which paragraphs a chat model may be asked about, and which offsets it may choose.

``semantic_mode="llm"`` sends a model only what it can safely judge: plain leaf
paragraphs of Markdown or reStructuredText whose display is their exact source slice —
never code, tables, lists, block quotes, HTML, or text the display rewrites — and only
those counting more than ``target_tokens`` (a paragraph within the target is never cut
inside, so asking about it would be a wasted call). The allowed offsets are the
paragraph's sentence starts, the same cuts the heuristic splitter would consider, so a
model's choice can only reorder preferences, never invent a cut.

Pure and synchronous like the engine: the caller (``StructureAwareChunker.asplit``)
makes the calls and hands the answers back to ``pack(refinements=...)``.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from fastrag.normalization.model import NormalizedDocument
from fastrag.packing.config import PackingConfig
from fastrag.packing.leaves import build_layout
from fastrag.packing.split.prose import sentence_starts
from fastrag.tokenization.protocol import Tokenizer

__all__ = ["REFINABLE_FORMATS", "RefinementRequest", "refinement_requests"]

REFINABLE_FORMATS: Final = frozenset({"markdown", "rst"})
"""Formats whose paragraphs are plain source text (HTML displays decoded text)."""


class RefinementRequest(NamedTuple):
    """One paragraph to ask about: its text, where it starts, the offsets allowed."""

    node_id: str
    text: str
    start: int
    """Source offset of ``text[0]``: add it to a chosen offset for ``pack``."""
    allowed: tuple[int, ...]
    """Sentence starts as offsets into ``text`` (each strictly inside it)."""


def refinement_requests(
    normalized: NormalizedDocument, tokenizer: Tokenizer, config: PackingConfig
) -> tuple[RefinementRequest, ...]:
    """The eligible paragraphs of ``normalized``, in source order (none unless "llm")."""
    if not config.refined or normalized.format not in REFINABLE_FORMATS:
        return ()
    content = normalized.content
    found: list[RefinementRequest] = []
    for block in build_layout(normalized, config).blocks:
        if (
            block.kind != "paragraph"
            or not block.pure
            or len(block.slots) != 1
            or block.slots[0][2] != block.node_id
            or normalized.node(block.node_id).children
            or block.text != content[block.start : block.end]
        ):
            continue
        allowed = sentence_starts(block.text)
        if allowed and tokenizer.count(block.text) > config.target_tokens:
            found.append(RefinementRequest(block.node_id, block.text, block.start, allowed))
    return tuple(found)
