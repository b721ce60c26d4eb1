"""Code: cut at logical lines, preferring definitions and blank lines; repeat the fence.

A code block is one unit, so every cut is inside it and goes through the tokenizer's
boundaries. Preference, strongest first: the start of a top-level definition (``def``,
``class``, ``function``, ``fn`` …, at the block's smallest indentation, decorators kept
with what they decorate), the line after a blank line, any line end. A line is
indivisible: cutting inside one (words, then characters) happens only under
``split_with_context`` and marks the chunks ``atomic_structure_loss``; under
``preserve_and_flag`` an oversized line stays whole and its chunk is flagged overflow.

For a Markdown fenced block, a chunk that starts inside the block repeats the opening
fence line and one that ends inside it gets the closing fence, both copied verbatim from
the source as ``code_fence`` context, so each chunk is valid Markdown on its own.
"""

from __future__ import annotations

import re
from typing import Final

from fastrag.packing.blocks import Strength
from fastrag.packing.config import PackingConfig
from fastrag.packing.split._site import ContextRange, CutSite, ranges_of

__all__ = ["CodeSplitter"]

_OPENING_FENCE: Final = re.compile(r" {0,3}(`{3,}+|~{3,}+)[^\n]*+\n")
_CLOSING_FENCE: Final = re.compile(r"\n( {0,3})(`{3,}|~{3,})[ \t]*\n?\Z")
_LINE_END: Final = re.compile(r"\n")
# The start of each line with text after a blank line: matching only the last blank line
# of a run keeps the scan linear (the run as a whole was rescanned from each of its lines
# when no text followed it).
_AFTER_BLANK: Final = re.compile(r"\n[ \t]*\n()(?=[ \t]*\S)")
_DEFINITION: Final = re.compile(
    r"^([ \t]*)(?:@[\w.]|(?:async[ \t]+)?def[ \t]|class[ \t]|(?:export[ \t]+)?"
    r"(?:default[ \t]+)?(?:async[ \t]+)?function\b|(?:pub(?:\([\w ]+\))?[ \t]+)?"
    r"(?:fn|struct|enum|impl|trait|mod)[ \t]|func[ \t]|interface[ \t]|"
    r"(?:public|private|protected|static|internal)[ \t])",
    re.MULTILINE,
)
_DECORATOR_LINE: Final = re.compile(r"[ \t]*@[\w.]")


class CodeSplitter:
    """Logical-line splitting of one code block, with fence context when fenced."""

    __slots__ = ("_close", "_indent", "_levels", "_open", "site")

    atomic_floor: int = Strength.LINE

    def __init__(self, site: CutSite, config: PackingConfig) -> None:
        self.site = site
        text = site.text
        opening = _OPENING_FENCE.match(text) if len(site.block.slots) == 1 else None
        self._open = opening.end() if opening is not None else 0
        self._close = len(text)
        if opening is not None:
            closing = _CLOSING_FENCE.search(text, self._open - 1)
            fence = opening.group(1)
            if (
                closing is not None
                and closing.group(2)[0] == fence[0]
                and len(closing.group(2)) >= len(fence)
            ):
                self._close = closing.start() + 1
        self._indent: int | None = None
        unit = (Strength.UNIT,) if len(site.block.slots) > 1 else ()
        lines = (Strength.CODE_DEFINITION, Strength.CODE_BLANK, Strength.LINE)
        finer = () if config.flag_overflow else (Strength.WORD, Strength.CHARACTER)
        self._levels: tuple[int, ...] = (*unit, *lines, *finer)

    @property
    def fenced(self) -> bool:
        return self._open > 0

    @property
    def mandatory_context(self) -> bool:
        return self.fenced

    def levels(self) -> tuple[int, ...]:
        return self._levels

    def cut_bounds(self) -> tuple[int, int]:
        """Cuts stay strictly between the opening fence line and the closing fence."""
        return (self._open, self._close)

    def candidates(self, start: int, end: int, level: int) -> list[tuple[int, int]]:
        low, high = max(start, self._open), min(end, self._close)
        if low >= high:
            return []
        text = self.site.text
        if level == Strength.UNIT:
            return [(cut, cut) for _, cut in self.site.slot_starts(start, end)]
        if level == Strength.LINE:
            return ranges_of(_LINE_END, text, low, high)
        if level == Strength.CODE_BLANK:
            return ranges_of(_AFTER_BLANK, text, low, high, group=1)
        if level == Strength.CODE_DEFINITION:
            return [(cut, cut) for cut in self._definition_starts(low, high)]
        return []

    def _minimum_indent(self) -> int:
        if self._indent is None:
            body = self.site.text[self._open : self._close]
            widths = [
                len(line) - len(line.lstrip(" \t")) for line in body.split("\n") if line.strip()
            ]
            self._indent = min(widths, default=0)
        return self._indent

    def _definition_starts(self, low: int, high: int) -> list[int]:
        text = self.site.text
        indent = self._minimum_indent()
        cuts: list[int] = []
        for match in _DEFINITION.finditer(text, low, high):
            if len(match.group(1)) != indent:
                continue
            line_start = match.start()
            previous_start = text.rfind("\n", 0, max(line_start - 1, 0)) + 1
            if line_start > 0 and _DECORATOR_LINE.match(text, previous_start, line_start):
                continue  # the decorator above already opened this definition
            if low < line_start < high:
                cuts.append(line_start)
        return cuts

    def leaf_cuts(self) -> list[int]:
        return [cut for _, cut in self.site.slot_starts(0, len(self.site.text))]

    def leading_context(self, start: int) -> tuple[ContextRange, ...]:
        if self.fenced and start >= self._open:
            return (ContextRange(0, self._open, "code_fence", True),)
        return ()

    def trailing_context(self, end: int) -> tuple[ContextRange, ...]:
        if self.fenced and end <= self._close < len(self.site.text):
            return (ContextRange(self._close, len(self.site.text), "code_fence", True),)
        return ()
