"""The HTML tree builder's open-element stack: push, implied end tags, scoped closes.

HTML lets authors omit many end tags and browsers repair misnesting; this class does the
small part of that repair a reader needs, in constant time per event whatever the depth:
``open`` maps each tag name to the stack positions where it is open, so "is a ``p`` open
in button scope" or "which ``li`` does this ``li`` close" never scans the stack.
"""

from __future__ import annotations

from fastrag.normalization.formats._html_frames import Frame
from fastrag.normalization.formats._html_tags import BARRIER_TAGS, OPTIONAL_END, Category
from fastrag.normalization.formats._html_tokens import Tokenizer

__all__ = ["MAX_DIAGNOSTICS", "OpenElements"]

MAX_DIAGNOSTICS = 100
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_LISTS = ("ul", "ol", "menu", "dir")
_TABLE_PARTS: dict[int, tuple[str, ...]] = {
    Category.ROW: ("tr", "td", "th"),
    Category.CELL: ("td", "th"),
    Category.TSECT: ("tr", "td", "th", "thead", "tbody", "tfoot"),
}


class OpenElements(Tokenizer):
    """The stack of open elements (tag names and their frames) of one parse.

    A ``Tokenizer`` only so that the tree builder has a single line of base classes
    (``TreeBuilder`` -> ``BlockTree`` -> this -> ``Tokenizer``): the compiled build
    (setup.py) supports no multiple inheritance. The builder initializes both parts.
    """

    sup: int  # open-element index of the element being excluded, or -1

    def __init__(self) -> None:
        self.tags: list[str] = []
        self.frames: list[Frame] = []
        self.open: dict[str, list[int]] = {}
        self.diagnostics: list[str] = []
        self.dropped_diagnostics = 0

    def close_frame(self, frame: Frame, end: int) -> None:
        """What closing an element at ``end`` does to the tree (the builder's business)."""
        raise NotImplementedError

    def diagnose(self, message: str) -> None:
        """Record a repair: an offset and a reason, never document text."""
        if len(self.diagnostics) < MAX_DIAGNOSTICS:
            self.diagnostics.append(message)
        else:
            self.dropped_diagnostics += 1

    def push(self, tag: str, frame: Frame) -> None:
        index = len(self.tags)
        self.tags.append(tag)
        self.frames.append(frame)
        positions = self.open.get(tag)
        if positions is None:
            self.open[tag] = [index]
        else:
            positions.append(index)

    def last(self, tag: str) -> int:
        positions = self.open.get(tag)
        return positions[-1] if positions else -1

    def barrier(self) -> int:
        barrier = -1
        open_ = self.open
        for tag in BARRIER_TAGS:
            positions = open_.get(tag)
            if positions and positions[-1] > barrier:
                barrier = positions[-1]
        return barrier

    def end_tag_end(self) -> int:
        """Where an end tag that starts at ``pos`` ends: just after its first ``>``."""
        end = self.content.find(">", self.pos + 1)
        return end + 1 if end >= 0 else len(self.content)

    def pop_to(self, index: int, end: int, own_end: int | None, at_eof: bool = False) -> None:
        """Pop open elements down to ``index``; it ends at ``own_end`` (its end tag) or,
        closed implicitly, at ``end`` like everything above it."""
        tags, frames, positions = self.tags, self.frames, self.open
        while len(tags) > index:
            top = len(tags) - 1
            tag = tags.pop()
            frame = frames.pop()
            positions[tag].pop()
            if top != index and not at_eof and self.sup < 0 and tag not in OPTIONAL_END:
                self.diagnose(f"offset {end}: <{tag}> was not closed; closed implicitly")
            if frame is not None:
                self.close_frame(frame, own_end if top == index and own_end is not None else end)

    def _lowest_open(self, names: tuple[str, ...], floor: int) -> int:
        """The lowest open-element index among ``names`` above ``floor`` (-1: none)."""
        found = -1
        for name in names:
            positions = self.open.get(name)
            if positions:
                for index in reversed(positions):
                    if index <= floor:
                        break
                    found = index if found < 0 else min(found, index)
        return found

    def close_p(self) -> None:
        positions = self.open.get("p")
        if positions and positions[-1] > self.barrier():
            self.pop_to(positions[-1], self.pos, None)

    def implied_close(self, category: int, tag: str) -> None:
        """HTML's implied end tags: a new li closes the open li of the same list, etc."""
        parts = _TABLE_PARTS.get(category)
        if parts is not None:
            index = self._lowest_open(parts, self.last("table"))
            if index >= 0:
                self.pop_to(index, self.pos, None)
            return
        if tag == "caption":
            return
        self.close_p()
        if category == Category.ITEM:
            index = self.last("li")
            if index >= 0 and index > max(self.barrier(), *(self.last(n) for n in _LISTS)):
                self.pop_to(index, self.pos, None)
        elif category == Category.DT or category == Category.DD:
            index = max(self.last("dt"), self.last("dd"))
            if index >= 0 and index > max(self.barrier(), self.last("dl")):
                self.pop_to(index, self.pos, None)
        elif category == Category.HEADING and self.tags and self.tags[-1] in _HEADINGS:
            self.diagnose(f"offset {self.pos}: heading inside a heading; closed the first")
            self.pop_to(len(self.tags) - 1, self.pos, None)
