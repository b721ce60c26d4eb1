"""The readable text of a Markdown document's HTML blocks, mapped back to their source.

READMEs put HTML where Markdown has no syntax: a centred tagline, a table of
contributors with their avatars, a ``<details>`` summary. Kept as raw source, such a
block embeds its tags and image URLs (a contributors table is thousands of tokens of
``<td><a href=…><img src=…>``) and hides the few words a reader sees. The HTML adapter
already reads HTML into exactly that: readable text, a serialization map back to the
source, and tags, scripts and page chrome excluded with their reason. This module runs
it on one block and flattens its leaves into the block's display, so the Markdown leaf
keeps its place in the tree and owns exactly the source the HTML adapter retains.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any

from fastrag.exceptions import NormalizationError
from fastrag.models import Document
from fastrag.normalization.formats.html import HtmlNormalizer
from fastrag.normalization.model import Exclusions, NormalizedDocument, NormalizedNode, Units

__all__ = ["HtmlBlockText", "read_html_block", "read_html_blocks"]

_GROUP_KINDS = frozenset({"list", "table", "definition_list"})
_LIST_LABEL = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+")
_HTML_SPACE = " \t\n\r\f"
"""ASCII whitespace, which HTML collapses."""
_BAR_LINKS = 3
_BAR_SEPARATORS = " \t\n\r\f\xa0|•·/-–—"
"""What may stand between the links of a bar (see ``_link_bar_only``)."""


@dataclass(frozen=True, slots=True)
class HtmlBlockText:
    """One HTML block read as text; every offset is relative to the block's start."""

    text: str
    segments: tuple[tuple[int, int, int, int], ...]
    """``(display_start, display_end, source_start, source_end)`` runs, in order."""
    units: tuple[tuple[int, int], ...]
    """Retained source ranges, in order: the block's units."""
    exclusions: tuple[tuple[int, int, str], ...]
    """The rest of the block, with the HTML adapter's reasons (``markup``, ``script`` …)."""


def read_html_block(block: str, normalizer: HtmlNormalizer) -> HtmlBlockText | None:
    """The block's readable text (``""`` with no units when it retains nothing: a
    script, a navigation bar), or ``None`` when the HTML adapter refuses it.

    Leaves are joined in source order, the rows of a table and the items of a list by
    a line break, other leaves by a blank line; joins are generated display text (no
    run maps them).
    """
    try:
        tree = normalizer.normalize(Document("html-block", "markdown", block, {}))
    except NormalizationError:
        return None
    # The HTML adapter's units include the whitespace its display collapses away at
    # their edges; a Markdown unit starts and ends on a visible character.
    units: list[tuple[int, int]] = []
    excluded = Exclusions.of(tree.exclusions)
    exclusions = list(zip(excluded.starts, excluded.ends, excluded.reasons, strict=True))
    retained = Units.of(tree.units)
    owners = set(retained.node_ids)
    leaves = [node for node in tree.nodes if node.node_id in owners]
    if _navigation_only(leaves) or _link_bar_only(tree, leaves):
        return HtmlBlockText("", (), (), ((0, len(block), "navigation"),))
    badges = {leaf.node_id for leaf in leaves if _group(tree, leaf) is None and _badges_only(leaf)}
    if badges and len(badges) == len(leaves):
        return HtmlBlockText("", (), (), ((0, len(block), "badges"),))
    owners -= badges
    for start, end, owner in zip(retained.starts, retained.ends, retained.node_ids, strict=True):
        if owner in badges:  # a row of linked badges beside the block's text
            exclusions.append((start, end, "badges"))
            continue
        text = block[start:end]
        first = start + len(text) - len(text.lstrip(_HTML_SPACE))
        last = start + len(text.rstrip(_HTML_SPACE))
        if first >= last:
            exclusions.append((start, end, "whitespace"))
            continue
        if first > start:
            exclusions.append((start, first, "whitespace"))
        if last < end:
            exclusions.append((last, end, "whitespace"))
        units.append((first, last))
    parts: list[str] = []
    segments: list[tuple[int, int, int, int]] = []
    position = 0
    previous_group: str | None = None
    for node in tree.nodes:
        if node.node_id not in owners:
            continue
        group = _group(tree, node)
        if parts:
            joiner = "\n" if group is not None and group == previous_group else "\n\n"
            parts.append(joiner)
            position += len(joiner)
        previous_group = group
        if node.serialization:
            segments.extend(
                (
                    position + run.display_start,
                    position + run.display_end,
                    run.source_start,
                    run.source_end,
                )
                for run in node.serialization
            )
        else:  # shown as its source: one verbatim run per span
            if node.text != "".join(span.slice(block) for span in node.spans):
                return None  # no map to build from: keep the block as written
            offset = position
            for span in node.spans:
                segments.append((offset, offset + len(span), span.start, span.end))
                offset += len(span)
        parts.append(node.text)
        position += len(node.text)
    if not _within(segments, units):
        return None  # a run outside the trimmed units: keep the block as written
    return HtmlBlockText("".join(parts), tuple(segments), tuple(units), tuple(sorted(exclusions)))


def _navigation_only(leaves: list[NormalizedNode]) -> bool:
    """Whether a block's leaves only move within the page: a table of contents (three or
    more leaves that are each one in-page link and nothing else, under at most one short
    label without links: Best-README-Template's ``<details><summary>Table of
    Contents</summary><ol><li><a href="#about">``), or one such link alone ("(back to
    top)"). As the Markdown reader's tables of contents, they match any query naming a
    section and answer none."""
    links, others = 0, []
    for leaf in leaves:
        if _in_page_link_only(leaf):
            links += 1
        else:
            others.append(leaf)
    if links == 1:
        return not others
    return links >= 3 and (
        not others
        or (
            len(others) == 1 and len(others[0].text) <= 40 and not others[0].attributes.get("links")
        )
    )


def _link_bar_only(tree: NormalizedDocument, leaves: list[NormalizedNode]) -> bool:
    """Whether a block is a bar of links ("Docs • Discord • Blog", three or more links
    and separators only on one line), maybe with badges or logos that link somewhere:
    navigation, as the Markdown reader's link bars are. A list of links stays (its
    items name things)."""
    counts = [_links_only(leaf) for leaf in leaves]
    return (
        bool(counts)
        and all(count is not None for count in counts)
        and max(count or 0 for count in counts) >= _BAR_LINKS
        and all(_group(tree, leaf) is None for leaf in leaves)
    )


def _badges_only(leaf: NormalizedNode) -> bool:
    """Whether a leaf shows linked images only (their alternative text) and separators:
    a README's row of build and version badges, as the Markdown reader's badge rows."""
    images = leaf.attributes.get("images")
    if not images or not leaf.attributes.get("links"):
        return False
    return _shows_only(leaf.text, images)


def _links_only(leaf: NormalizedNode) -> int | None:
    """How many links a leaf shows when it shows nothing else but separators, or None."""
    links = leaf.attributes.get("links")
    return len(links) if links and _shows_only(leaf.text, links) else None


def _shows_only(text: str, pairs: Sequence[tuple[str, str]]) -> bool:
    """Whether ``text`` is the first items of ``pairs`` (link texts, image alts), in
    order, and separators between them."""
    position = 0
    for shown, _ in pairs:
        found = text.find(shown, position) if shown else position
        if found < 0 or text[position:found].strip(_BAR_SEPARATORS):
            return False
        position = found + len(shown)
    return not text[position:].strip(_BAR_SEPARATORS)


def _in_page_link_only(leaf: NormalizedNode) -> bool:
    """One link to a ``#fragment`` of the page, with nothing around it but a list label
    ("1. ", "- "), brackets and spaces."""
    links = leaf.attributes.get("links")
    if not links or len(links) != 1:
        return False
    text, target = links[0]
    shown: str = _LIST_LABEL.sub("", leaf.text).strip(" ()[]")
    return isinstance(target, str) and target.startswith("#") and shown == text


def _group(tree: NormalizedDocument, node: NormalizedNode) -> str | None:
    """The list, table or definition list a leaf is part of: its leaves are lines of
    one block, joined by a line break (anything else by a blank line)."""
    current = node
    while current.parent_id is not None:
        current = tree.node(current.parent_id)
        if current.kind in _GROUP_KINDS:
            return current.node_id
    return None


def _within(segments: list[tuple[int, int, int, int]], units: list[tuple[int, int]]) -> bool:
    """Whether every run's source lies inside one unit (both lists in source order)."""
    index = 0
    for _, _, start, end in segments:
        while index < len(units) and units[index][1] < end:
            index += 1
        if index == len(units) or start < units[index][0]:
            return False
    return True


def read_html_blocks(
    content: str,
    blocks: dict[int, tuple[int, int]],
    units: tuple[array[int], array[int], list[int]],
    exclusions: tuple[array[int], array[int], list[str]],
    normalizer: HtmlNormalizer,
) -> dict[int, tuple[str, array[int]]]:
    """Read each HTML block leaf ``blocks[owner] = (start, end)`` (code-point offsets).

    ``units`` (starts, ends, owners) and ``exclusions`` (starts, ends, reasons) are the
    tree's, in source order; a block read as text has its one unit replaced, in place,
    by the units the HTML adapter retains and its tags added to the exclusions. Returns
    each such block's display text and map, as ``Nodes`` takes packed maps: flat
    ``(display_start, display_end, source_start, source_end)`` offsets, source offsets
    absolute (no ``MapSegment`` per run: tens of thousands in the Node.js docs).
    """
    starts, ends, owners = units
    read: dict[int, HtmlBlockText] = {}
    for owner, (start, end) in blocks.items():
        found = read_html_block(content[start:end], normalizer)
        if found is not None:
            read[owner] = found
    if not read:
        return {}
    # Spliced where the read blocks' units are, not rebuilt: a copy of every unit and
    # exclusion as Python ints and tuples was the normalizer's peak on large documents
    # (1.8x the input of 10 MB of Markdown with a few dozen HTML blocks).
    places: list[tuple[int, int, HtmlBlockText]] = []
    for index, owner in enumerate(owners):
        found = read.get(owner)
        if found is not None and blocks[owner] == (starts[index], ends[index]):
            places.append((index, owner, found))
            del read[owner]  # only its first unit is the block's
    added: list[tuple[int, int, str]] = []
    replacements: list[tuple[int, int, tuple[list[Any], ...]]] = []
    for index, owner, found in places:
        start = starts[index]
        shifted = [(start + first, start + last) for first, last in found.units]
        replacements.append(
            (index, 1, ([a for a, _ in shifted], [b for _, b in shifted], [owner] * len(shifted)))
        )
        added.extend((start + a, start + b, reason) for a, b, reason in found.exclusions)
    _splice((starts, ends, owners), replacements)
    _insert_sorted(exclusions, sorted(added))
    return {owner: (found.text, _packed_map(found, blocks[owner][0])) for _, owner, found in places}


def _packed_map(found: HtmlBlockText, base: int) -> array[int]:
    """The block's map segments as flat offsets, its source offsets moved by ``base``."""
    packed = array("q")
    for display_start, display_end, a, b in found.segments:
        packed.extend((display_start, display_end, base + a, base + b))
    return packed


def _insert_sorted(
    exclusions: tuple[array[int], array[int], list[str]], added: list[tuple[int, int, str]]
) -> None:
    """Insert ``added`` (sorted) into the exclusions (in source order, as the draft
    records them), in place, in the order ``sorted()`` of all of them as ``(start, end,
    reason)`` would give (an equal one goes after those already there)."""
    starts, ends, reasons = exclusions
    edits: list[tuple[int, int, tuple[list[Any], ...]]] = []
    for start, end, reason in added:
        index = bisect_left(starts, start)  # then past any equal one already there
        while index < len(starts) and (starts[index], ends[index], reasons[index]) <= (
            start,
            end,
            reason,
        ):
            index += 1
        edits.append((index, 0, ([start], [end], [reason])))
    _splice(exclusions, edits)


def _splice(
    columns: tuple[MutableSequence[Any], ...], edits: list[tuple[int, int, tuple[list[Any], ...]]]
) -> None:
    """Apply ``(index, removed, new values per column)`` edits, in ascending order of
    index, to parallel columns in place, by one merge of slices: a slice assignment or
    an insert each would move the whole tail each time (1.2 s on 50 MB of Markdown)."""
    if not edits:
        return
    merged = [column[:0] for column in columns]  # empty, of each column's type
    previous = 0
    for index, removed, values in edits:
        for out, column, new in zip(merged, columns, values, strict=True):
            out.extend(column[previous:index])
            out.extend(new)
        previous = index + removed
    for out, column in zip(merged, columns, strict=True):
        out.extend(column[previous:])
        column[:] = out
