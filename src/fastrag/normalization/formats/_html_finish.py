"""Turn the HTML tree builder's draft into immutable nodes, units and exclusions.

Blocks that ended up with no retained text anywhere below them (an empty ``<p>``, a list
of empty items) are dropped; node ids are assigned in the final preorder, so they are
dense and stable: ``f"{document.id}:{kind}:{position}"``.
"""

from __future__ import annotations

import html
import re
from array import array
from typing import Any, cast

from fastrag.models import Document
from fastrag.normalization._attributes import AttributePacker, PackedAttributes
from fastrag.normalization.formats._html_events import TreeBuilder
from fastrag.normalization.formats._html_text import CONTAINER, Block
from fastrag.normalization.model import Exclusions, NodeIds, Nodes, NormalizedDocument, Units

__all__ = ["build_document"]


def _kept_preorder(root: Block) -> list[Block]:
    """Blocks with retained text at or below them, parents first; extents filled in."""
    preorder: list[Block] = []
    stack = [root]
    while stack:
        block = stack.pop()
        preorder.append(block)
        stack.extend(reversed(block.children))
    kept: set[int] = set()
    for block in reversed(preorder):  # children before parents
        keep = block.units > 0
        start, end = (block.ustart, block.uend) if keep else (-1, -1)
        for child in block.children:
            if id(child) in kept:
                keep = True
                start = child.start if start < 0 else min(start, child.start)
                end = max(end, child.end)
        if keep:
            kept.add(id(block))
            if block.dom < 0:  # implicit blocks and sections span what they hold
                block.start, block.end = start, end
    return [block for block in preorder if id(block) in kept or block.parent is None]


def _attributes(block: Block, text: str) -> dict[str, Any]:
    attributes = block.attrs
    if block.links:
        # A link that opened before the block's first text starts after its label.
        head = len(block.head) if block.head and text.startswith(block.head) else 0
        attributes["links"] = tuple(
            (text[max(start, head) : end].strip(), href) for start, end, href in block.links
        )
    images = attributes.get("images")
    if images is not None:
        attributes["images"] = tuple(images)
    return attributes


_TAGS_OR_TEXT = re.compile(r"(<[^<>]*>)+|([^<]+|<)")
"""Runs of tags, and runs of what lies between them, in a leaf's trailing claim."""


class _Partition:
    """Units (owners by node position) and exclusions as columns, appended in order."""

    __slots__ = ("ends", "excluded_ends", "excluded_starts", "owners", "reasons", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.owners: list[int] = []
        self.excluded_starts: list[int] = []
        self.excluded_ends: list[int] = []
        self.reasons: list[str] = []

    def unit(self, start: int, end: int, owner: int) -> None:
        self.starts.append(start)
        self.ends.append(end)
        self.owners.append(owner)

    def exclude(self, start: int, end: int, reason: str) -> None:
        self.excluded_starts.append(start)
        self.excluded_ends.append(end)
        self.reasons.append(reason)


def _partition(
    claims: list[int | Block | str], positions: dict[int, int], content: str
) -> _Partition:
    """Units and exclusions from the builder's claims; what no claim covers is markup.

    A leaf claims whitespace after its text for the space it shows if more text follows;
    when none does, the claim (with the markup it spans: ``</p>``, or a doctype when text
    precedes ``<html>``) ends at the leaf's last shown character and the rest is
    excluded, so a unit runs from a leaf's first to its last text character. A unit's
    owner is its block's node position (``positions``, by ``id`` of the block).
    """
    length = len(content)
    found = _Partition()
    position = 0
    starts = cast("list[int]", claims[0::3])
    ends = cast("list[int]", claims[1::3])
    for start, end, owner in zip(starts, ends, claims[2::3], strict=True):
        if start > position:
            found.exclude(position, start, "markup")
        if type(owner) is str:
            if owner == "whitespace":  # a leaf that showed only spaces: tags are markup
                _spaces_or_tags(content, start, end, found)
            else:
                found.exclude(start, end, owner)
            position = end
            continue
        block = cast(Block, owner)
        shown_end = block.segs[-1] if block.segs else end  # its last shown text's end
        if shown_end > start:
            stop = min(end, shown_end)
            found.unit(start, stop, positions[id(block)])
            start = stop
        if start < end:  # tags and the whitespace between them, each by its reason
            _spaces_or_tags(content, start, end, found)
        position = end
    if position < length:
        found.exclude(position, length, "markup")
    return found


def _spaces_or_tags(content: str, start: int, end: int, found: _Partition) -> None:
    """Exclude ``[start, end)``, which shows nothing: tags as markup, the runs between
    them (spaces, references to them such as ``&nbsp;``) as whitespace."""
    for piece in _TAGS_OR_TEXT.finditer(content, start, end):
        low, high = piece.span()
        text_run = piece.lastindex == 2 and not html.unescape(content[low:high]).strip()
        found.exclude(low, high, "whitespace" if text_run else "markup")


def build_document(document: Document, tb: TreeBuilder) -> NormalizedDocument:
    """The validated ``NormalizedDocument`` for one finished ``TreeBuilder`` run."""
    content = document.content
    length = len(content)
    root = tb.root
    blocks = _kept_preorder(root)
    title = tb.page_title()
    # The tree as columns (``Nodes``): no node, span, mapping or map segment object per
    # block (a quarter of a million segments on the HTML bench corpus), and the
    # packer reads each map as flat offsets. Node ``i`` is ``blocks[i]`` (id
    # ``f"{document.id}:{kind}:{i}"``); units name their owners by that position.
    positions = {id(block): position for position, block in enumerate(blocks)}
    kinds: list[str] = ["document"]
    texts: list[str | None] = [title]
    starts = array("q", (0 if length else -1,))
    ends = array("q", (length if length else -1,))
    parents = array("q", (-1,))
    levels: list[int | None] = [None]
    packer = AttributePacker()
    packed: list[PackedAttributes] = [None]
    serialization: dict[int, list[int]] = {}
    for position in range(1, len(blocks)):
        block = blocks[position]
        if block.mode == CONTAINER:
            text = block.children[0].display() if block.kind == "section" else ""
        else:
            text = block.display()
        parent = block.parent
        kinds.append(block.kind)
        texts.append(text)
        starts.append(block.start)
        ends.append(block.end)
        parents.append(positions[id(parent)] if parent is not None else -1)
        levels.append(block.level)
        if block.links or "images" in block.attrs:
            packed.append(packer.own(_attributes(block, text)))
        else:  # a list item's label and depth, a fence's language: equal ones shared
            packed.append(packer.shared(block.attrs))
        if block.segs:
            serialization[position] = block.segs
    nodes = Nodes(
        content,
        document.id,
        kinds,
        texts,
        (starts, ends),
        parents,
        levels,
        packed_attributes=packed,
        packed_serialization=serialization,
    )
    found = _partition(tb.claims, positions, content)
    units = Units.from_offsets(
        found.starts,
        found.ends,
        NodeIds(nodes, found.owners),
        id_prefix=f"{document.id}:unit:",
    )
    exclusions = Exclusions.from_offsets(found.excluded_starts, found.excluded_ends, found.reasons)
    del found
    tb.release()  # the draft is read: let reference counting free it (see release)
    metadata = {"title": title} if title else {}
    return NormalizedDocument(
        document,
        "html",
        nodes,
        units,
        exclusions,
        tuple(tb.diagnostics),
        metadata,
    ).validate()
