"""The mutable state of one Markdown walk: draft nodes, ownership of the source, limits.

``_markdown_tree`` feeds pulldown-cmark events to a ``Walker``; the walker decides who
owns every byte. A ``cursor`` marks how far the source is already owned; every byte
before a block's start that no earlier block claimed is a *gap* of the innermost open
container:

* ASCII whitespace at the edges of a gap (blank lines, indentation, line ends) is
  excluded as ``whitespace``;
* the rest of a gap is owned by that container as one unit: a list item's marker, task
  box and the text of a tight item (pyromark emits no paragraph there), ``>`` prefixes
  of a block quote, a footnote's label, an alert's ``[!NOTE]`` line. Lists and tables
  only group their children and own nothing: syntax between or after their children
  goes to the container around them;
* at document or section level the source pulldown-cmark emits no event for is a link
  reference definition (``[label]: /url``); it renders nothing and its target is already
  recorded on the links that use it, so it is excluded as ``link_definition``. Anything
  else found there (a parser quirk) is kept as a paragraph, with a diagnostic.

Leaf blocks (paragraph, heading, code, HTML block, table row, thematic break) own their
whole source range minus trailing whitespace — except an HTML block that is nothing but
comments (``<!-- … -->``), which renders nothing and is excluded as ``comment``, as the
HTML and RST adapters exclude theirs (Node.js keeps YAML metadata and model-card
templates keep authoring instructions in such comments). All positions only move forward and are
clamped to the text, so units and exclusions tile the input exactly whatever the parser
reports. Offsets are UTF-8 byte offsets; the caller maps them to code points once.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from fastrag.normalization.formats._markdown_heading import heading_title

__all__ = ["CONTAINER_TAGS", "PLAIN_INLINE", "DraftNode", "DraftTree", "TreeLimits", "Walker"]

# Inline tags that change nothing in the tree (the text stays in its block's source).
PLAIN_INLINE = frozenset({"Emphasis", "Strong", "Strikethrough", "Superscript", "Subscript"})
# Containers that only group their children: syntax between or after the children (``>``
# prefixes of a list inside a quote, a definition pulldown-cmark counts into a list's
# range) belongs to the container around them.
_GROUPS = frozenset({"list", "table"})
CONTAINER_TAGS = frozenset({"List", "Item", "BlockQuote", "FootnoteDefinition", "Table"})
# An HTML block of comments only (CommonMark's HTML block type 2 ends on the line with
# "-->", so text after it on that line makes the block more than a comment). Lazy and
# anchored at each "<!--": linear in the block's length. Possessive here and in the
# block patterns below: a comment ends at its first "-->", and a run of whitespace is
# read once, not split again at every failed try (exponential in the number of
# comments, or of nested table-of-contents items, before).
_COMMENTS_ONLY = re.compile(rb"[ \t\r\n]*+(?:<!--.*?-->[ \t\r\n]*+)++", re.DOTALL)
# A MyST target, ``(label)=`` alone on its line: a cross-reference anchor for Sphinx,
# syntax with no readable text (CommonMark reads it as a paragraph). Labels may hold
# spaces (pip's ``(Requirement Specifiers)=``).
_MYST_TARGET = re.compile(rb"[ \t\r\n]*\((?=[^()\r\n]*[^()\s])[^()\r\n]+\)=[ \t\r\n]*")
# An HTML block or a paragraph of tags only — ``<p align="center">``, ``<a href=…><img
# src=…></a>``, ``</div>``, the ``<a id="x"></a>`` anchors above changelog headings —
# shows no text: a README's centred logo or badge row. A tag name is letters, digits and
# "-" up to whitespace, "/" or ">", so an autolink (``<https://…>``, ``<a@b.org>``) is not
# one: it shows a link. (An attribute value holding ``>`` ends the tag early and leaves
# text behind: such a block is kept.)
_TAGS_ONLY = re.compile(
    rb"[ \t\r\n]*+(?:(?:<!--.*?-->|</?[A-Za-z][A-Za-z0-9-]*(?:[ \t\r\n/][^<>]*)?>"
    rb"|&nbsp;|&#160;|&#[xX][aA]0;)[ \t\r\n]*+)++",
    re.DOTALL,
)
# A paragraph of linked images only — ``[![PyPI version](https://badge…)](https://pypi…)``,
# inline or by reference, separated by spaces, ``|``, ``•`` or ``·`` — is a badge row:
# build status and version shields, no prose. An image without a link is kept.
_TARGET = rb"(?:\([^()\s]*(?:[ \t]+\"[^\"\r\n]*\")?\)|\[[^\]\r\n]*\])"
_BADGE = rb"\[!\[[^\]\r\n]*\]" + _TARGET + rb"\]" + _TARGET
# A paragraph of three or more links and nothing else but separators (spaces, ``|``,
# ``•``, ``·``) is a link bar: "[Docs](…) | [Examples](…) | [Discord](…)", rich's
# eighteen translated READMEs. Navigation, no prose; a sentence around links is kept.
_SEPARATORS = rb"(?:[ \t\r\n|]|\xe2\x80\xa2|\xc2\xb7)"
_LINK = rb"(?:\[[^\[\]\r\n]+\]" + _TARGET + rb"|" + _BADGE + rb")"
_LINK_BAR = re.compile(
    rb"[ \t\r\n]*" + _LINK + rb"(?:" + _SEPARATORS + rb"+" + _LINK + rb"){2,}[ \t\r\n]*"
)
# A list of three or more items that are each one in-page link and nothing else is a
# table of contents ("- [Installation](#installation)"): navigation that would match any
# query naming a section and answer none (the PDF parser leaves such pages out too).
_CONTENTS_ITEM = (
    rb"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[[^\[\]\r\n]+\]"
    rb"(?:\(#[^()\s]*\)|\[[^\[\]\r\n]*\])?[ \t]*"
)
# Its reference-style items ("* [Formats]" with "[Formats]: #formats" further down, as
# winston's README has them) count when each label's definition is an in-page target.
_REFERENCE_ITEM = re.compile(
    rb"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[([^\[\]\r\n]+)\](?!\(#)(?:\[([^\[\]\r\n]*)\])?",
    re.MULTILINE,
)
_DEFINITION = re.compile(rb"[ \t]*\[([^\[\]\r\n]+)\]:[ \t]*<?([^\s>]*)")
# A paragraph that is one in-page link and nothing else, maybe in brackets: "[⬆ back to
# top](#readme)", "([back to top](#top))" after every section of awesome lists and
# README templates. It moves within the page and says nothing.
_IN_PAGE_LINK_ONLY = re.compile(rb"[ \t\r\n]*\(?\[[^\[\]\r\n]+\]\(#[^()\s]*\)\)?[ \t\r\n]*")
_CONTENTS_LIST = re.compile(
    rb"[ \t\r\n]*+"
    + _CONTENTS_ITEM
    + rb"(?:(?:\r\n?|\n)[ \t\r\n]*+"
    + _CONTENTS_ITEM
    + rb"){2,}+[ \t\r\n]*"
)
# A heading's attribute list, ``## Requirements {#requirements}`` (kramdown, Pandoc, PHP
# Markdown Extra, MkDocs' attr_list, Docusaurus): an id or class for the HTML, not part
# of the title. Only a block that opens with ``#id`` or ``.class`` (kramdown may put ":"
# first) and holds nothing else but ``key=value`` pairs: "Set {a, b}" keeps its braces.
_ATTRIBUTE = r"(?:[#.][\w:.-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|[^\s{}\"']+))"
_HEADING_ATTRIBUTES = re.compile(
    rf"(?<![ \t])[ \t]++\{{:?[ \t]*+[#.][\w:.-]++(?:[ \t]++{_ATTRIBUTE})*+[ \t]*+\}}$"
)
# MDX (Docusaurus, Nextra): ``import Tabs from '@theme/Tabs';`` lines at the top of a
# page bring in components, no prose. Only imports of a quoted module, one per line: a
# paragraph with any other line stays. The names before ``from`` are read a word at a
# time, possessively: as one run of word and space characters they made a line of tabs
# cost cubic time to reject.
_MDX_IMPORTS = re.compile(
    rb"(?:[ \t]*+import[ \t]++(?:(?:(?!from[ \t])[\w$*{},]++[ \t]*+)++from[ \t]++)?"
    rb"(?:'[^'\r\n]+'|\"[^\"\r\n]+\")[ \t]*+;?[ \t]*+(?:\r\n?|\n|$))++[ \t\r\n]*"
)
# The fence lines of a container (Docusaurus's and VuePress's ``:::tip`` … ``:::``, MyST's
# ``:::{note}``) standing alone as paragraphs: syntax around the content, which stays.
# A fence line with a title after the name ("::: warning Heads up") is kept.
_CONTAINER_FENCE = re.compile(rb"[ \t]*+:{3,}+[ \t]*+(?:\{?[\w-]++\}?)?[ \t\r\n]*+")
_RESCANS: Final = 32
"""Passes over a stretch of repeated link definitions (see ``Walker.top_level``)."""
# The same fence lines at the edges of a paragraph with text between them: Docusaurus and
# MyST let a container's content follow its opening line directly (":::tip Title" then
# the text, ":::" under it). The opening marker goes (a title after it stays, the
# paragraph starting there); a closing line, whatever opened the container, ends the
# paragraph before it.
_OPENING_FENCE = re.compile(rb"[ \t]*+:{3,}+[ \t]*+(?:\{[\w-]++\}|[\w-]++)[ \t]*+")
_CLOSING_FENCE = re.compile(rb"(?:\r\n?|\n)([ \t]*+:{3,}+)[ \t]*+(?:\r\n?|\n)?[ \t\r\n]*+\Z")
# First bytes of those paragraphs: "(", "[", "<" (inline HTML tags only: the
# ``<a id="1.95-Language"></a>`` anchors above headings of READMEs and changelogs),
# "i" (an MDX import), ":" (a container fence), or indentation before one.
_MARKUP_PARAGRAPH_STARTS: Final = frozenset(b"([< \ti:")
_BADGES_ONLY = re.compile(
    rb"[ \t\r\n]*"
    + _BADGE
    + rb"(?:(?:[ \t\r\n|]|\xe2\x80\xa2|\xc2\xb7)*"
    + _BADGE
    + rb")*[ \t\r\n]*"
)
# A badge row written half in HTML (``<a href=…><img src=…></a>``, tags only) and half in
# Markdown (``[![CI](…)](…)``), comments between: Mocha's. Every piece starts with "<" or
# "[", the separators with neither, so the possessive loop reads each byte once.
_MIXED_BADGES = re.compile(
    rb"[ \t\r\n]*+(?:(?:"
    + _BADGE
    + rb"|<!--.*?-->|</?[A-Za-z][A-Za-z0-9-]*(?:[ \t\r\n/][^<>]*)?>)"
    + rb"(?:[ \t\r\n|]|\xe2\x80\xa2|\xc2\xb7|&nbsp;)*+)++",
    re.DOTALL,
)


def _label_key(label: bytes) -> bytes:
    """A reference label as CommonMark matches it: case-folded, inner whitespace one space
    (ASCII case folding: a label outside ASCII rarely names an in-page target)."""
    return b" ".join(label.lower().split())


@dataclass(frozen=True, slots=True)
class TreeLimits:
    """Bounds that keep hostile input linear; see ``MarkdownNormalizer`` for defaults."""

    max_depth: int
    max_table_cells: int


class DraftNode:
    """A node under construction; ``start``/``end`` are byte offsets into the parsed text.

    ``title`` is the readable text of headings and sections; a leaf without one takes its
    exact source slice, a container the empty string. ``leaf`` marks nodes that own their
    whole range (so one span object can serve both the node and its unit).
    """

    __slots__ = ("attributes", "end", "kind", "leaf", "level", "parent", "start", "title")

    def __init__(
        self,
        kind: str,
        start: int,
        parent: int,
        leaf: bool = False,
        level: int | None = None,
        attributes: dict[str, Any] | None = None,
    ) -> None:
        self.kind = kind
        self.start = start
        self.end = start
        self.parent = parent
        self.leaf = leaf
        self.level = level
        self.title: str | None = None
        self.attributes = attributes


@dataclass(slots=True)
class DraftTree:
    """The walk's result: nodes in preorder, then units and exclusions in source order."""

    nodes: list[DraftNode]
    # The root's children: the one child list the adapter reads (a list per parent was
    # 0.45x the input of 10 MB of Markdown); the tree's children come from the parents.
    root_children: list[int]
    # Flat machine-int arrays, not a tuple per record: no object per unit, offset or
    # exclusion (a compiled build, setup.py, would box a fresh int for each offset a
    # list holds, where the interpreter shares the parser's), and C-level slices
    # (``units[0::3]``) read each field back.
    units: array[int]  # start, end, owner node of each unit in turn
    exclusion_bounds: array[int]  # start, end of each exclusion in turn
    exclusion_reasons: list[str]
    # (message template with "{offset}", byte offset): offsets are mapped later.
    diagnostics: list[tuple[str, int]]
    # Nodes whose attributes hold link, image or footnote lists (to freeze as tuples).
    noted: list[int]
    # HTML block leaves, in order (read as text by the HTML adapter, see _markdown_html).
    html_blocks: list[int]


class Walker:
    """One pass over ``(event, range)`` pairs; see the module docstring for the rules."""

    # Slots: the event loop reads these attributes about a million times per corpus.
    __slots__ = (
        "block_depth",
        "collecting",
        "cursor",
        "data",
        "definition_starts",
        "definitions",
        "diagnostics",
        "exclusion_bounds",
        "exclusion_reasons",
        "find_definitions",
        "footnote_labels",
        "header_pending",
        "heading_html",
        "heading_images",
        "heading_parts",
        "html_blocks",
        "image_marks",
        "items",
        "last_end",
        "leaf",
        "limits",
        "link_pairs",
        "link_sink",
        "links",
        "list_depth",
        "max_depth",
        "nodes",
        "noted",
        "overrides",
        "root_children",
        "shared_attributes",
        "shared_ids",
        "size",
        "skipped",
        "stack",
        "table_cells",
        "top_start",
        "trailing_markup",
        "units",
    )

    def __init__(
        self,
        data: bytes,
        limits: TreeLimits,
        find_definitions: Callable[[int, int], list[tuple[int, int]]],
    ) -> None:
        self.data = data
        self.find_definitions = find_definitions
        self.definitions: list[tuple[int, int]] | None = None  # sorted byte spans
        self.definition_starts: list[int] = []
        self.size = len(data)
        self.limits = limits
        self.max_depth = limits.max_depth
        self.nodes: list[DraftNode] = [DraftNode("document", 0, -1)]
        self.root_children: list[int] = []
        self.shared_attributes: dict[tuple[str, int], dict[str, Any]] = {}
        self.shared_ids: set[int] = set()  # of shared_attributes' values, alive as long
        self.units: array[int] = array("q")  # flat, see DraftTree
        self.exclusion_bounds: array[int] = array("q")
        self.exclusion_reasons: list[str] = []
        self.diagnostics: list[tuple[str, int]] = []
        self.noted: list[int] = []  # see DraftTree.noted
        self.html_blocks: list[int] = []  # see DraftTree.html_blocks
        self.stack: list[int] = [0]  # open containers: root, sections, then blocks
        self.block_depth = 0  # open containers other than root and sections
        self.list_depth = 0
        self.items: list[int] = []  # open list items, innermost last
        self.skipped = 0  # containers ignored beyond max_depth (flattened as text)
        self.cursor = 0  # bytes before this are owned or excluded
        self.last_end = 0  # end of the last retained unit
        self.leaf = -1  # the open leaf block, or -1
        self.header_pending = False  # the header row also owns the delimiter row below
        # Reference labels whose targets an earlier piece decides (see build_draft).
        self.overrides: Mapping[str, str] = {}
        self.top_start = 0  # where the last top-level block started
        self.footnote_labels: list[str] = []  # footnotes defined (in this piece)
        self.heading_parts: list[str] | None = None
        # The open heading's images, as ranges of heading_parts, and its inline HTML:
        # what heading_title reads (closed ranges; where each open image started).
        self.heading_images: list[tuple[int, int]] = []
        self.image_marks: list[int] = []
        self.heading_html: list[str] = []
        self.links: list[tuple[str, list[str], str]] = []  # links/images being read
        # Variable-length tuples: a compiled build (setup.py) keeps a fixed-length one unboxed
        # and would box a fresh copy per repeat, losing the sharing.
        self.link_pairs: dict[tuple[str, ...], tuple[str, ...]] = {}  # see end_link
        # The open block's "links" list (see end_link); None until looked up, and reset
        # whenever the block receiving inlines (open leaf, else innermost container) changes.
        self.link_sink: list[Any] | None = None
        self.collecting = False  # a heading or link wants the inline text
        self.table_cells = 0
        # Markup the open leaf ends before, ``[start, end)``: a container's closing fence
        # line under a paragraph (see _fenced_paragraph), an HTML heading's end tag.
        self.trailing_markup: tuple[int, int] | None = None

    # -- ownership -------------------------------------------------------------------

    def exclude(self, start: int, end: int, reason: str) -> None:
        bounds = self.exclusion_bounds
        if bounds and bounds[-1] == start and self.exclusion_reasons[-1] == reason:
            bounds[-1] = end  # extends the last exclusion
            return
        bounds.extend((start, end))
        self.exclusion_reasons.append(reason)

    def fill(self, end: int) -> None:
        """Give ``[cursor, end)`` to the innermost open container (see module docstring)."""
        start = self.cursor
        if end <= start:
            return
        self.cursor = end
        gap = self.data[start:end]
        if gap.isspace():  # bytes.isspace: the same ASCII set strip() removes
            self.exclude(start, end, "whitespace")
            return
        rest = gap.lstrip()
        core_start = end - len(rest)
        core_end = core_start + len(rest.rstrip())
        if core_start > start:
            self.exclude(start, core_start, "whitespace")
        nodes = self.nodes
        owner = self.stack[-1]
        kind = nodes[owner].kind
        if kind in _GROUPS:
            owner = nodes[owner].parent
            kind = nodes[owner].kind
        if owner == 0 or kind == "section":
            self.top_level(core_start, core_end, owner)
        else:
            self.units.extend((core_start, core_end, owner))
            self.last_end = core_end
        if core_end < end:
            self.exclusion_bounds.extend((core_end, end))
            self.exclusion_reasons.append("whitespace")

    def top_level(self, start: int, end: int, owner: int) -> None:
        """Exclude the link definitions in a document-level gap; keep anything else.

        Definitions are located by pyromark itself, over the whole text once (on the
        first such gap), then over any stretch still uncovered, again while a pass finds
        some (at most ``_RESCANS``): each pass reports a repeated label only once.
        Source no block claims and no definition covers, which a parser quirk can leave
        (pulldown-cmark drops a line after "indented code, space, CR"), is kept as a
        paragraph with a diagnostic rather than silently excluded.
        """
        if self.definitions is None:
            self.definitions = self.find_definitions(0, self.size)
            self.definition_starts = [span[0] for span in self.definitions]
        index = bisect_left(self.definition_starts, start)

        def uncovered(gap_start: int, gap_end: int, depth: int = 0) -> None:
            if self.data[gap_start:gap_end].isspace():  # the line end between definitions
                self.exclude(gap_start, gap_end, "whitespace")
                return
            # Each pass reports a label once: a label defined again (and again) in the
            # stretch is found by the next pass over what is still uncovered. Passes
            # are capped (hostile input: thousands of one label), the rest kept.
            local = self.find_definitions(gap_start, gap_end) if depth < _RESCANS else []
            self.cover(
                gap_start,
                gap_end,
                local,
                0,
                (lambda s, e: uncovered(s, e, depth + 1))
                if local
                else (lambda s, e: self.orphan(s, e, owner)),
            )

        self.cover(start, end, self.definitions, index, uncovered)

    def cover(
        self,
        start: int,
        end: int,
        spans: list[tuple[int, int]],
        index: int,
        between: Callable[[int, int], None],
    ) -> None:
        """Exclude the definition ``spans`` (sorted, from ``index``) in ``[start, end)``.

        ``between`` places each stretch between them, in source order.
        """
        position = start
        while index < len(spans) and spans[index][0] < end:
            definition_start, definition_end = spans[index]
            index += 1
            if definition_start < position:
                continue
            if definition_start > position:
                between(position, definition_start)
            definition_end = min(definition_end, end)
            self.exclude(definition_start, definition_end, "link_definition")
            position = definition_end
        if position < end:
            between(position, end)

    def orphan(self, start: int, end: int, owner: int) -> None:
        """Keep top-level source no block claimed as a paragraph (whitespace excluded)."""
        gap = self.data[start:end]
        core = gap.strip()
        if not core:
            self.exclude(start, end, "whitespace")
            return
        core_start = end - len(gap.lstrip())
        core_end = core_start + len(core)
        if core_start > start:
            self.exclude(start, core_start, "whitespace")
        node = DraftNode("paragraph", core_start, owner, True)
        node.end = core_end
        self.units.extend((core_start, core_end, self.add(node)))
        self.last_end = core_end
        message = "no parsed block covers the source at offset {offset}; kept as a paragraph"
        self.diagnostics.append((message, core_start))
        if core_end < end:
            self.exclude(core_end, end, "whitespace")

    def add(self, node: DraftNode) -> int:
        nodes = self.nodes
        index = len(nodes)
        nodes.append(node)
        if node.parent == 0:
            self.root_children.append(index)
        return index

    def values(self, key: str) -> list[Any]:
        """The ``key`` list (links, images, footnotes) of the block showing the inline.

        Created on first use. At document or section level nothing is recorded: the
        list returned there is a throwaway.
        """
        index = self.leaf if self.leaf >= 0 else self.stack[-1]
        node = self.nodes[index]
        if index == 0 or node.kind == "section":
            return []
        attributes = self.own_attributes(node)
        values: list[Any] | None = attributes.get(key)
        if values is None:
            values = attributes[key] = []
            self.noted.append(index)
        return values

    def item_attributes(self, label: str) -> dict[str, Any]:
        """The attributes a list item opens with, one dict per (label, depth).

        Shared: tens of thousands of list items have the same few (a dict each was 0.3x
        the input of 10 MB of Markdown at the draft's peak). ``own_attributes`` copies
        one before anything is added to it.
        """
        key = (label, self.list_depth)
        found = self.shared_attributes.get(key)
        if found is None:
            found = self.shared_attributes[key] = {"label": label, "depth": self.list_depth}
            self.shared_ids.add(id(found))
        return found

    def own_attributes(self, node: DraftNode) -> dict[str, Any]:
        """``node.attributes``, made the node's own (created, or copied if shared)."""
        attributes = node.attributes
        if attributes is None:
            attributes = node.attributes = {}
        elif id(attributes) in self.shared_ids:
            attributes = node.attributes = dict(attributes)
        return attributes

    # -- leaves ----------------------------------------------------------------------

    def open_leaf(
        self,
        kind: str,
        start: int,
        level: int | None = None,
        attributes: dict[str, Any] | None = None,
    ) -> None:
        cursor = self.cursor
        if start < cursor:
            start = cursor
        elif start > self.size:
            start = self.size
        if start > cursor:
            self.fill(start)
        self.leaf = self.add(DraftNode(kind, start, self.stack[-1], True, level, attributes))
        self.link_sink = None

    def comment_block(self, start: int, end: int) -> bool:
        """Exclude the HTML block ``[start, end)`` as ``comment`` if it is only comments.

        Returns whether it did; the block then opens no leaf, and its end event finds
        none to close.
        """
        return self._excluded_block(start, end, _COMMENTS_ONLY, "comment")

    def markup_paragraph(self, start: int, end: int) -> bool:
        """Exclude the paragraph ``[start, end)`` if it shows no prose: inline HTML tags
        only, a MyST target, a container's fence line or, at the top level, MDX imports
        (``markup``), a badge row (``badges``) or, at the top level, a link bar or a
        lone in-page link (``navigation``). Each starts with "<", "(", "[", "i" or ":"
        (after at most an indentation), so other paragraphs — nearly all — are passed
        over on one byte."""
        if start >= self.size:
            return False
        data = self.data
        if data[start] in _MARKUP_PARAGRAPH_STARTS:
            if (
                self._excluded_block(start, end, _TAGS_ONLY, "markup")
                or self._excluded_block(start, end, _MYST_TARGET, "markup")
                or self._excluded_block(start, end, _CONTAINER_FENCE, "markup")
                or (
                    not self.block_depth
                    and self._excluded_block(start, end, _MDX_IMPORTS, "markup")
                )
                or self._excluded_block(start, end, _BADGES_ONLY, "badges")
                or self._excluded_block(start, end, _MIXED_BADGES, "badges")
                or (
                    not self.block_depth
                    and (
                        self._excluded_block(start, end, _LINK_BAR, "navigation")
                        or self._excluded_block(start, end, _IN_PAGE_LINK_ONLY, "navigation")
                    )
                )
            ):
                return True
            self._opening_fence(start, end)
        if data.find(b":::", end - 8, end) >= 0:  # maybe a container's closing line
            closing = _CLOSING_FENCE.search(data, start, end)
            if closing is not None:
                self.trailing_markup = (closing.start(1), closing.end(1))
        return False

    def _opening_fence(self, start: int, end: int) -> None:
        """Exclude a container's opening fence at the start of the paragraph ``[start,
        end)`` when text follows it (see ``_OPENING_FENCE``)."""
        data = self.data
        start = max(start, self.cursor)
        line_end = data.find(b"\n", start, end)
        if line_end < 0:
            return
        opening = _OPENING_FENCE.match(data, start, line_end)
        if opening is None or not data[line_end:end].strip():
            return  # not a fence, or a fence line alone (a title stays with it)
        self.leading_markup(start, opening.end())
        if not data[opening.end() : line_end].strip():  # no title: the line end goes too
            self.fill(line_end + 1)

    def leading_markup(self, start: int, end: int) -> None:
        """Exclude ``[start, end)`` as ``markup`` before a leaf that opens at ``end``."""
        self.fill(start)
        self.exclude(max(start, self.cursor), end, "markup")
        self.cursor = end

    def shows_no_text(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` is whitespace and tags only (nothing excluded)."""
        return not self.data[start:end].strip() or bool(_TAGS_ONLY.fullmatch(self.data, start, end))

    def tags_only(self, start: int, end: int) -> bool:
        """Exclude the HTML block ``[start, end)`` as ``markup`` if it shows no text."""
        return self._excluded_block(start, end, _TAGS_ONLY, "markup")

    def markup_block(self, start: int, end: int) -> bool:
        """Exclude the block ``[start, end)`` as ``markup`` (the caller knows it is)."""
        return self._excluded_block(start, end, None, "markup")

    def contents_list(self, start: int, end: int) -> bool:
        """Exclude the list ``[start, end)`` as ``navigation`` if it is a table of contents.

        Its items' events are then skipped, as past ``max_depth``: the list's own end
        event takes the skip back.
        """
        start = max(start, self.cursor)
        if _CONTENTS_LIST.fullmatch(self.data, start, min(end, self.size)) is None:
            return False
        references = _REFERENCE_ITEM.findall(self.data, start, min(end, self.size))
        if references and not self._in_page_references(references):
            return False
        self._excluded_block(start, end, None, "navigation")
        self.skipped += 1
        return True

    def _in_page_references(self, references: list[tuple[bytes, bytes]]) -> bool:
        """Whether every ``(text, label)`` reference link resolves to a fragment of the
        page (a shortcut or collapsed reference's label is its text); definitions are
        looked up in this piece of the document only."""
        if self.definitions is None:
            self.definitions = self.find_definitions(0, self.size)
            self.definition_starts = [span[0] for span in self.definitions]
        targets: dict[bytes, bytes] = {}
        for definition_start, definition_end in self.definitions:
            found = _DEFINITION.match(self.data, definition_start, definition_end)
            if found is not None:
                targets.setdefault(_label_key(found[1]), found[2])
        return all(
            targets.get(_label_key(label or text), b"").startswith(b"#")
            for text, label in references
        )

    def navigation_block(self, start: int, end: int) -> bool:
        """Exclude the block ``[start, end)`` as ``navigation`` (the caller knows it is)."""
        return self._excluded_block(start, end, None, "navigation")

    def _excluded_block(
        self, start: int, end: int, whole: re.Pattern[bytes] | None, reason: str
    ) -> bool:
        """Exclude ``[start, end)`` as ``reason`` if ``whole`` matches all of it (always,
        for ``None``: a construct its syntax tree identified); whether it did."""
        start = max(start, self.cursor)
        end = min(end, self.size)
        if end <= start or (whole is not None and whole.fullmatch(self.data, start, end) is None):
            return False
        self.fill(start)
        block = self.data[start:end]
        core_start = end - len(block.lstrip())
        core_end = start + len(block.rstrip())
        if core_start > start:
            self.exclude(start, core_start, "whitespace")
        self.exclude(core_start, core_end, reason)
        if core_end < end:
            self.exclude(core_end, end, "whitespace")
        self.cursor = end
        return True

    def close_leaf(self, end: int) -> None:
        index = self.leaf
        node = self.nodes[index]
        start = node.start
        end = min(max(end, start, self.cursor), self.size)
        fence = self.trailing_markup
        if fence is not None:
            self.trailing_markup = None
            if not start < fence[0] < fence[1] <= end:
                fence = None
        core_end = start + len(self.data[start : end if fence is None else fence[0]].rstrip())
        if core_end > start:
            self.units.extend((start, core_end, index))
            self.last_end = core_end
        if fence is not None:
            if core_end < fence[0]:
                self.exclude(core_end, fence[0], "whitespace")
            self.exclude(fence[0], fence[1], "markup")
            if fence[1] < end:
                self.exclude(fence[1], end, "whitespace")
        elif core_end < end:
            self.exclude(core_end, end, "whitespace")
        node.end = core_end
        self.cursor = end
        if self.heading_parts is not None:
            title = heading_title(self.heading_parts, self.heading_images, self.heading_html)
            node.title = _HEADING_ATTRIBUTES.sub("", title) or title
            self.heading_parts = None
            self.heading_images.clear()
            self.image_marks.clear()
            self.heading_html.clear()
            parent = self.nodes[node.parent]
            if parent.kind == "section":
                parent.title = node.title
        self.leaf = -1
        self.link_sink = None
        self.links.clear()
        self.collecting = False

    # -- containers ------------------------------------------------------------------

    def open_container(self, kind: str, start: int, attributes: dict[str, Any] | None) -> bool:
        """Open a block container; False when it lies past ``max_depth`` (then skipped)."""
        if self.skipped or self.block_depth >= self.max_depth:
            if not self.skipped:
                self.diagnostics.append(
                    (
                        f"nesting deeper than max_depth={self.limits.max_depth} at offset "
                        "{offset}: deeper blocks flattened into their container as text",
                        min(max(start, self.cursor), self.size),
                    )
                )
            self.skipped += 1
            return False
        if start <= self.cursor:
            start = self.cursor
        else:
            if start > self.size:
                start = self.size
            self.fill(start)
        stack = self.stack
        index = self.add(DraftNode(kind, start, stack[-1], False, None, attributes))
        stack.append(index)
        self.link_sink = None
        self.block_depth += 1
        return True

    def close_container(self, end: int) -> bool:
        """Close the innermost container; False when it was one skipped past max_depth."""
        if self.skipped:
            self.skipped -= 1
            return False
        node = self.nodes[self.stack[-1]]
        if end > self.cursor and node.kind not in _GROUPS:
            # A group's trailing gap is left to the container around it, whose next
            # fill takes it whole (pulldown-cmark counts a definition line into a list).
            self.fill(end if end < self.size else self.size)
        self.stack.pop()
        self.link_sink = None
        node.end = self.last_end if self.last_end > node.start else node.start
        self.block_depth -= 1
        return True

    def finish(self, index: int) -> None:
        node = self.nodes[index]
        node.end = max(node.start, self.last_end)

    def open_section(self, start: int, level: int) -> None:
        """Close sections of the same or a deeper level, then open one for this heading."""
        start = min(max(start, self.cursor), self.size)
        self.fill(start)
        stack, nodes = self.stack, self.nodes
        while len(stack) > 1 and (nodes[stack[-1]].level or 0) >= level:
            self.finish(stack.pop())
        stack.append(self.add(DraftNode("section", start, stack[-1], False, level)))
        self.link_sink = None

    # -- events ----------------------------------------------------------------------

    def end_link(self) -> None:
        """Record a closed link or image on its block (100k+ calls per corpus).

        A block's ``links`` list is looked up once (``link_sink``) and reused for its
        further links, kept flat (text, target, text, target …: the tree keeps them
        under a ``PairsKey``, with no tuple per pair). Each distinct (text, target) is
        looked up once, so repeats share their strings: documents repeat their links (a
        quarter of the Node.js docs' are repeats), and these strings are a large part of
        the tree's memory.
        """
        links = self.links
        if links:
            kind, parts, target = links.pop()
            text = "".join(parts).strip()
            pair: tuple[str, ...] = (text, target)
            pair = self.link_pairs.setdefault(pair, pair)
            if kind == "Link":
                sink = self.link_sink
                if sink is None:
                    sink = self.link_sink = self.values("links")
                sink.extend(pair)  # flat: text, target (see ``PairsKey``)
            else:
                self.values("images").extend(pair)
                if self.image_marks:  # an image of the open heading (see heading_title)
                    self.heading_images.append(
                        (self.image_marks.pop(), len(self.heading_parts or ()))
                    )
            if links:  # an image inside a link names the link
                links[-1][1].append(text)
            else:
                self.collecting = self.heading_parts is not None

    def text(self, value: str) -> None:
        if self.heading_parts is not None:
            self.heading_parts.append(value)
        if self.links:  # outer links get an inner image's text when it closes
            self.links[-1][1].append(value)

    def other(self, event: dict[str, Any]) -> None:
        """Footnote references and task markers; inline and block HTML change nothing."""
        if self.skipped:
            return
        label = event.get("FootnoteReference")
        if label is not None:
            self.values("footnotes").append(label)
            return
        checked = event.get("TaskListMarker")
        if checked is not None and self.items:
            self.own_attributes(self.nodes[self.items[-1]])["checked"] = bool(checked)
