"""Turn the HTML tree builder's draft into immutable nodes, units and exclusions.

Blocks that ended up with no retained text anywhere below them (an empty ``<p>``, a list
of empty items) are dropped; node ids are assigned in the final preorder, so they are
dense and stable: ``f"{document.id}:{kind}:{position}"``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from itertools import starmap
from types import MappingProxyType
from typing import Any, cast

from fastrag.models import Document
from fastrag.normalization.formats._html_events import TreeBuilder
from fastrag.normalization.formats._html_text import CONTAINER, Block
from fastrag.normalization.model import (
    ExclusionColumns,
    Exclusions,
    MapSegment,
    NormalizedDocument,
    NormalizedNode,
    SourceSpan,
    UnitColumns,
    Units,
)

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


def _segments(segs: list[int]) -> tuple[MapSegment, ...]:
    """The map runs of a block's flat quadruples (starmap: no Python frame per run)."""
    if not segs:  # a container: no iterators to set up for nothing
        return ()
    runs = iter(segs)
    return tuple(starmap(MapSegment, zip(runs, runs, runs, runs, strict=True)))


_TAGS_OR_TEXT = re.compile(r"(<[^<>]*>)+|([^<]+|<)")
"""Runs of tags, and runs of what lies between them, in a leaf's trailing claim."""


def _partition(
    claims: list[int | Block | str], prefix: str, content: str
) -> tuple[Units, Exclusions]:
    """Units and exclusions from the builder's claims; what no claim covers is markup.

    A leaf claims whitespace after its text for the space it shows if more text follows;
    when none does, the claim (with the markup it spans: ``</p>``, or a doctype when text
    precedes ``<html>``) ends at the leaf's last shown character and the rest is
    excluded, so a unit runs from a leaf's first to its last text character.
    """
    length = len(content)
    units = UnitColumns(prefix)
    excluded = ExclusionColumns()
    add_unit, add_exclusion = units.add, excluded.add  # hot loop: one per claim
    position = 0
    starts = cast("list[int]", claims[0::3])
    ends = cast("list[int]", claims[1::3])
    for start, end, owner in zip(starts, ends, claims[2::3], strict=True):
        if start > position:
            add_exclusion(position, start, "markup")
        if type(owner) is str:
            if owner == "whitespace":  # a leaf that showed only spaces: tags are markup
                _spaces_or_tags(content, start, end, add_exclusion)
            else:
                add_exclusion(start, end, owner)
            position = end
            continue
        block = cast(Block, owner)
        shown_end = block.segs[-1] if block.segs else end  # its last shown text's end
        if shown_end > start:
            stop = min(end, shown_end)
            add_unit(start, stop, block.nid)
            start = stop
        if start < end:  # tags and the whitespace between them, each by its reason
            _spaces_or_tags(content, start, end, add_exclusion)
        position = end
    if position < length:
        add_exclusion(position, length, "markup")
    return units.build(), excluded.build()


def _spaces_or_tags(
    content: str, start: int, end: int, add_exclusion: Callable[[int, int, str], None]
) -> None:
    """Exclude ``[start, end)``, which shows nothing: tags as markup, the runs between
    them (spaces, references to them such as ``&nbsp;``) as whitespace."""
    for piece in _TAGS_OR_TEXT.finditer(content, start, end):
        low, high = piece.span()
        text_run = piece.lastindex == 2 and not html.unescape(content[low:high]).strip()
        add_exclusion(low, high, "whitespace" if text_run else "markup")


def build_document(document: Document, tb: TreeBuilder) -> NormalizedDocument:
    """The validated ``NormalizedDocument`` for one finished ``TreeBuilder`` run."""
    content = document.content
    length = len(content)
    root = tb.root
    blocks = _kept_preorder(root)
    for position, block in enumerate(blocks):
        block.nid = f"{document.id}:{block.kind}:{position}"
    title = tb.page_title()
    nodes: list[NormalizedNode] = []
    for block in blocks:
        # Most blocks are leaves: no generator to run for their empty tuple.
        children = (
            tuple(child.nid for child in block.children if child.nid) if block.children else ()
        )
        if block is root:
            spans: tuple[SourceSpan, ...] = (SourceSpan(0, length),) if length else ()
            nodes.append(NormalizedNode(block.nid, "document", title, spans, None, children))
            continue
        if block.mode == CONTAINER:
            text = block.children[0].display() if block.kind == "section" else ""
        else:
            text = block.display()
        parent = block.parent
        nodes.append(
            NormalizedNode(
                block.nid,
                block.kind,
                text,
                (SourceSpan(block.start, block.end),),
                parent.nid if parent is not None else None,
                children,
                block.level,
                # A read-only view, not a copy: the draft block is dropped right after.
                MappingProxyType(_attributes(block, text))
                if block.links or "images" in block.attrs
                else MappingProxyType(block.attrs),
                _segments(block.segs),
            )
        )
    units, exclusions = _partition(tb.claims, f"{document.id}:unit:", content)
    tb.release()  # the draft is read: let reference counting free it (see release)
    metadata = {"title": title} if title else {}
    return NormalizedDocument(
        document,
        "html",
        tuple(nodes),
        units,
        exclusions,
        tuple(tb.diagnostics),
        metadata,
    ).validate()
