"""Prose: cut between the units of a block, then at sentences, lines, words, characters.

Sentences are found by a deliberately small heuristic (terminal punctuation, optional
closing quotes or brackets, then whitespace; CJK full stops need no whitespace) rather
than a language model: it is deterministic, fast and good enough to prefer a sentence
end over a word boundary. ``semantic_mode="disabled"`` drops the sentence and line
levels, so prose is cut at words. Word and character cuts are made by the refiner from
the tokenizer's boundaries (see ``refine.py``), not enumerated here.

``semantic_mode="llm"`` adds one level above sentences, ``REFINED``: the sentence ends
whose following sentence start a chat model chose (``Block.refined``). A proposal is
only a preference among cuts the heuristic already allows — an offset that is not a
sentence start here offers nothing — and every other level stays below it as the
fallback, so budgets and coverage never depend on the model.
"""

from __future__ import annotations

import re
from typing import Final

from fastrag.packing.blocks import Strength
from fastrag.packing.config import PackingConfig
from fastrag.packing.split._site import ContextRange, CutSite, inside_unit_levels, ranges_of

__all__ = [
    "LINE_BREAK",
    "REFINED",
    "SENTENCE_END",
    "LinesSplitter",
    "ProseSplitter",
    "sentence_ranges",
    "sentence_starts",
]

SENTENCE_END: Final = re.compile(
    r"(?:[.!?…]+[\"'”’)\]]*(\s+)(?=\S))|(?:[。！？]+[\"'”’)\]」』]*()(?=\S))"
)
"""A sentence end: Western punctuation then whitespace (group 1), or a CJK stop (group 2)."""

LINE_BREAK: Final = re.compile(r"\n+")

REFINED: Final = int(Strength.SENTENCE) + 5
"""A sentence end a chat model chose: above ``SENTENCE``, below ``CODE_BLANK``."""


def sentence_ranges(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The whitespace after each sentence end strictly inside ``(start, end)``."""
    found: list[tuple[int, int]] = []
    for match in SENTENCE_END.finditer(text, start, min(end + 8, len(text))):
        group = 1 if match.start(1) >= 0 else 2
        low, high = max(match.start(group), start + 1), min(match.end(group), end - 1)
        if match.start(group) >= end:
            break
        if low <= high:
            found.append((low, high))
    return found


def sentence_starts(text: str) -> tuple[int, ...]:
    """Offsets where a sentence after the first begins: what a refiner may choose."""
    return tuple(sorted({high for _, high in sentence_ranges(text, 0, len(text))}))


class ProseSplitter:
    """Paragraphs, block quotes, headings and anything without a dedicated splitter."""

    __slots__ = ("_levels", "site")

    atomic_floor: int = Strength.CHARACTER

    def __init__(self, site: CutSite, config: PackingConfig) -> None:
        self.site = site
        unit = (Strength.UNIT,) if len(site.block.slots) > 1 else ()
        refined = (REFINED,) if site.block.refined and config.refined else ()
        self._levels: tuple[int, ...] = (
            *unit,
            *refined,
            *inside_unit_levels(config.sentences),
        )

    @property
    def mandatory_context(self) -> bool:
        return False

    def levels(self) -> tuple[int, ...]:
        return self._levels

    def cut_bounds(self) -> tuple[int, int]:
        return (0, len(self.site.text))

    def candidates(self, start: int, end: int, level: int) -> list[tuple[int, int]]:
        if level == Strength.UNIT:
            return [(cut, cut) for _, cut in self._unit_starts(start, end)]
        if level == Strength.SENTENCE:
            return sentence_ranges(self.site.text, start, end)
        if level == REFINED:
            chosen = self.site.block.refined
            return [
                (low, high)
                for low, high in sentence_ranges(self.site.text, start, end)
                if high in chosen
            ]
        if level == Strength.LINE:
            return ranges_of(LINE_BREAK, self.site.text, start, end)
        return []

    def leaf_cuts(self) -> list[int]:
        return [cut for _, cut in self._unit_starts(0, len(self.site.text))]

    def _unit_starts(self, start: int, end: int) -> list[tuple[int, int]]:
        """Slot starts a unit cut may use: never right after a definition list's term,
        nor between a container's syntax and the content it opens.

        A glossary entry, an option or an API name (``<dt>``, an RST term) is what a
        reader searches for; cut after it and the definition lands in the next chunk
        without its name. The pair stays together; a definition too long for one chunk
        is still cut inside, at its sentences. (For markers see ``follows_syntax``.)
        """
        site = self.site
        slots, node = site.block.slots, site.normalized.node
        return [
            (index, cut)
            for index, cut in site.slot_starts(start, end)
            if node(slots[index - 1][2]).kind != "definition_term"
            and not site.follows_syntax(index)
        ]

    def leading_context(self, start: int) -> tuple[ContextRange, ...]:
        """The terms of the definitions a chunk starting at ``start`` continues, outermost
        first, as optional ``list_parent`` context (the first line of each).

        A definition too long for one chunk (an option of a command reference, an RST
        or ``<dl>`` glossary entry) is cut inside; the chunk after the cut would not say
        what it defines. Like a list item's parent label, the term is dropped when it
        does not fit.
        """
        site = self.site
        slots = site.block.slots
        if start <= 0 or len(slots) < 2:
            return ()
        slot = site.shown_slot(start)
        contexts: list[ContextRange] = []
        for term in self._terms(slots[slot][2]):
            found = next((index for index in range(slot, -1, -1) if slots[index][2] == term), -1)
            if found < 0 or slots[found][1] > start:
                continue  # not shown in this block, or the chunk starts inside it
            label = site.parent_label(slots[found][0], slots[found][1])
            if label is not None:
                contexts.append(label)
        return tuple(contexts)

    def _terms(self, owner_id: str) -> list[str]:
        """The term of each definition enclosing ``owner_id`` in the block, outermost
        first (the nearest term before the definition among its siblings)."""
        normalized = self.site.normalized
        block_id = self.site.block.node_id
        terms: list[str] = []
        node = normalized.node(owner_id)
        while node.node_id != block_id and node.parent_id is not None:
            parent = normalized.node(node.parent_id)
            if node.kind == "definition":
                siblings = parent.children
                before = siblings[: siblings.index(node.node_id)]
                term = next(
                    (
                        sibling
                        for sibling in reversed(before)
                        if normalized.node(sibling).kind == "definition_term"
                    ),
                    None,
                )
                if term is not None:
                    terms.append(term)
            node = parent
        terms.reverse()
        return terms

    def trailing_context(self, end: int) -> tuple[ContextRange, ...]:
        return ()


class LinesSplitter(ProseSplitter):
    """Raw HTML, math, line blocks, and code or tables whose preservation is off."""

    __slots__ = ()

    def __init__(self, site: CutSite, config: PackingConfig) -> None:
        self.site = site
        unit = (Strength.UNIT,) if len(site.block.slots) > 1 else ()
        self._levels = (*unit, Strength.LINE, Strength.WORD, Strength.CHARACTER)
