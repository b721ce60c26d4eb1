"""Markdown (CommonMark + GFM) read into a source-faithful tree with exact offsets.

Parsing is pulldown-cmark's, through ``pyromark``: CommonMark plus GFM tables,
strikethrough, task lists, footnotes and GitHub alerts (``> [!NOTE]``). Its events carry
UTF-8 byte ranges; ``_markdown_tree`` walks them (with the ownership rules of
``_markdown_draft``) into a draft tree and coverage partition, and ``_markdown_offsets``
maps bytes to code points in one pass.

What the tree looks like (see ``fastrag.normalization.model`` for the shared rules):

* Top-level headings open ``section`` nodes (same ``level``; ``text`` is the title) that
  run until the next heading of the same or a higher level. Headings inside block quotes,
  list items or footnotes are ``heading`` leaves without a section: a section cannot end
  inside a container. A title leaves out the images before its first word and after its
  last (``# dotenv [![NPM version](…)](…)`` is titled "dotenv"); a heading of images
  only, or of inline HTML only, is named by their alternative text
  (``_markdown_heading``).
* Leaves own their source minus trailing whitespace and their ``text`` is that exact
  slice, original syntax included (fences, ``>`` prefixes of continuation lines, table
  pipes) — except ``heading``, whose unit covers its whole source (``#`` marks, setext
  underline) while its ``text`` is the plain title.
* Containers (``list``, ``list_item``, ``blockquote``, ``admonition``, ``footnote``,
  ``table``) have ``text == ""``. A list item owns its marker, task box and, in a tight
  list, its text (CommonMark has no paragraph there): ``- [x] done`` is one unit, and
  an item with a nested list owns the lines before it. Block quotes, admonitions and
  footnotes own their syntax between children (``>`` prefixes, ``[!NOTE]``, ``[^1]:``);
  lists and tables own nothing.
* A table is a ``table`` node ``{"align": (...)}`` with ``table_row`` children
  ``{"header": bool}``; the header row owns the delimiter row (``|---|:-:|``) below it,
  so repeating the header row repeats valid table syntax. GFM requires that first row,
  and READMEs laying out a grid of avatars, sponsor logos or screenshots fill it with
  pictures: a first row whose every filled cell shows an image (``![…](…)`` or
  ``<img>``) names no column and is ``{"header": False}``, data that packing never
  repeats as a schema.
* Code: ``{"language": ...}`` from the info string's first word (omitted when absent) and
  ``{"fence": "```"}`` for fenced blocks. Lists: ``{"ordered": bool}`` plus ``"start"``
  for ordered lists; items ``{"label": "-" | "3.", "depth": n}`` and ``"checked"`` for
  task items. Links, images and footnote references are recorded on the leaf containing
  them: ``{"links": (("text", "href"), ...), "images": ((alt, src), ...),
  "footnotes": (label, ...)}``; reference links carry their resolved target.
* Front matter (``---`` … ``---``/``...`` YAML or ``+++`` … ``+++`` TOML, only at the
  very start, opening line followed by a non-blank line) is excluded as
  ``front_matter`` and kept raw, uninterpreted, in
  ``metadata["front_matter"]`` (``metadata["front_matter_format"]``: ``yaml``/``toml``).
  One key is read: a top-level ``title`` whose value is its own source text (plain, or
  quoted without escapes: ``title: npm-audit``, ``title = "Guide"``) is the page title
  static site generators render as its ``<h1>``. In a document with no level-1 heading
  of its own, it is one: a ``heading`` of level 1 whose unit is the value, opening a
  section over the whole document, so every chunk's heading path starts with the page
  title and the body's sections (``### Synopsis``) are its subsections.
* A thematic break (``---``, ``***``, ``___``) draws a rule and shows no text: it is
  excluded as ``markup`` (a chunk of a lone rule embedded nothing).
* An HTML block that is one heading element, ``<h1 align="center">Project</h1>`` (how
  READMEs centre their title), is a ``heading`` of that level and opens a section like
  ``# Project``; its ``text`` is the element's readable text (tags dropped, entities
  decoded). When that is the element's one run of text between tags, as written, its
  unit is that run and the tags around it are ``markup``, a logo inside the element too
  (the chunk shows "Project"); otherwise its unit is the element's source. Beyond 300
  characters of text it is a banner, not a title, and stays an ``html_block``. The
  heading element a block shows first after tags only (a centred logo over the title) is
  a heading too: the tags before it and any closing tags after it are ``markup``, and
  anything else after it is an ``html_block`` of its own in the new section (logo, title
  and tagline in one block). A heading element of three or more links and at most two
  words of its own ("Quickstart · Tutorial · Plugins") is ``navigation``, not a title.
* HTML blocks that hold only comments (``<!-- … -->``, whitespace between) render
  nothing: they are excluded as ``comment``; blocks of tags only (a README's centred
  logo, ``<p align="center">``, ``</div>``) show nothing either: ``markup``, and so do
  paragraphs of inline tags only (the ``<a id="1.95-Language"></a>`` anchors changelogs
  put above their headings). Other HTML
  blocks are ``html_block`` leaves that show what a reader sees: the HTML adapter reads
  the block (``_markdown_html``), the leaf's ``text`` is its readable text (a table's
  rows as ``| a | b |`` lines, other leaves a blank line apart) with a ``serialization``
  map back to the source, its units are what that adapter retains and the rest is
  excluded with its reasons (tags ``markup``, a ``<script>`` ``script`` …). A block
  that shows nothing (a script) keeps its leaf with no units.
* A paragraph of linked images only (a README's row of build and version badges, in
  Markdown, HTML or both) is excluded as ``badges``; so is such a line inside an HTML
  block read as text, beside the block's text; an image without a link stays, and so do
  table and list rows of them. A paragraph of three or more links and separators only
  (``[Docs](…) | [Examples](…)``, a list of translated READMEs) at the top level is a
  link bar, excluded as ``navigation``; so is a table of contents, a top-level list of
  three or more items that are each one in-page link (``- [Usage](#usage)``, or a
  reference link whose definition in the same piece of the document is an in-page
  target: ``- [Formats]`` with ``[Formats]: #formats``), and a
  top-level paragraph that is one in-page link alone, maybe in brackets (``[⬆ back to
  top](#readme)``). An HTML block read as text whose leaves only move within the page
  goes the same way: three or more in-page links, each alone in its leaf, under at most
  one short label (a ``<details>`` whose summary is "Table of Contents"), or one such
  link alone (``<p align="right">(<a href="#readme-top">back to top</a>)</p>``), or a
  bar of three or more links and separators on a line, maybe beside linked badges ("Docs
  • Discord • Blog"); a list of links stays.
* A MyST directive fence whose body names documents, objects or files rather than
  content (```` ```{toctree} ````, ``{contents}``, ``{include}``; autodoc's
  ``{autofunction}`` … when its body holds only options) is excluded as ``markup``;
  other fences stay code blocks.
* MDX's imports (``import Tabs from '@theme/Tabs';`` lines, a paragraph of nothing else
  at the top level) and a container's fence lines alone in their paragraph (``:::tip``,
  ``:::``, ``:::{note}``; the content between stays) are excluded as ``markup``; so are
  such lines at the edges of a paragraph when the text follows without a blank line
  (Docusaurus, MyST): the opening marker (a title after it stays and starts the
  paragraph) and a closing ``:::`` line. A
  heading's attribute list (``## Requirements {#requirements}``, ``{#id .class}``) is
  left out of its title, not of its source.
* A MyST target, ``(label)=`` alone in its paragraph (Sphinx cross-reference anchors in
  MyST Markdown), is syntax with no readable text: excluded as ``markup``.
* Link reference definitions at document level render nothing and their targets are on
  the links that use them: they are excluded as ``link_definition`` (located by pyromark's
  ``reference_definitions``, repeated labels included).
* Lone surrogates cannot be encoded for the parser; they are replaced by U+FFFD (also one
  code point) for parsing only, so offsets and node text stay those of the original.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata as _metadata
from operator import attrgetter, itemgetter
from typing import Any

from fastrag._optional import require
from fastrag.models import Document
from fastrag.normalization.formats import _markdown_segments as segments
from fastrag.normalization.formats._limits import check_positive, check_size, refined_identity
from fastrag.normalization.formats._markdown_html import read_html_blocks
from fastrag.normalization.formats._markdown_offsets import ByteToChar
from fastrag.normalization.formats._markdown_tree import (
    TITLE_MAX,
    DraftTree,
    TreeLimits,
    build_draft,
    node_columns,
)
from fastrag.normalization.formats.html import HtmlNormalizer
from fastrag.normalization.model import (
    Exclusions,
    NodeIds,
    Nodes,
    NormalizedDocument,
    PackedAttributes,
    Units,
)

__all__ = ["MarkdownNormalizer"]

# Field readers for map(): draft nodes' offsets, then diagnostics' (template, offset).
_start, _end = attrgetter("start"), attrgetter("end")
_second = itemgetter(1)
# Draft attributes collected as lists while walking; frozen to tuples on assembly.
_LIST_ATTRIBUTES = ("links", "images", "footnotes")
_PAIRED_ATTRIBUTES = frozenset({"links", "images"})
"""Lists the draft keeps flat, two values per link or image (``Walker.end_link``)."""
_OWN_ATTRIBUTES = frozenset(_LIST_ATTRIBUTES)
"""Attributes that make a leaf's mapping its own (not shared, see ``_assemble``)."""

_FRONT_OPEN = re.compile(r"(---|\+\+\+)[ \t]*(?:\r\n|\r|\n)(?![ \t]*(?:\r\n|\r|\n))")
_FRONT_CLOSE = {
    "---": re.compile(r"(?:(?<=\n)|(?<=\r))(?:---|\.\.\.)[ \t]*(?:\r\n|\r|\n|\Z)"),
    "+++": re.compile(r"(?:(?<=\n)|(?<=\r))\+\+\+[ \t]*(?:\r\n|\r|\n|\Z)"),
}
_SURROGATE = re.compile("[\ud800-\udfff]")


def _pyromark_version() -> str:
    """The installed pyromark version, read from package metadata without importing it."""
    try:
        return _metadata.version("pyromark")
    except _metadata.PackageNotFoundError:
        return "missing"


@dataclass(frozen=True, slots=True)
class _FrontMatter:
    end: int  # first code point after the closing delimiter's line
    raw: str
    format: str
    title: tuple[int, int] | None = None
    """Where a plain ``title`` value lies in the content (see ``_front_title``)."""


# A top-level ``title`` whose value is its source text: plain, or quoted without escapes
# (YAML ``title: Guide``, ``title: "npm-audit"``; TOML ``title = "Guide"``). Anything
# else (block scalars, anchors, flow collections, escapes) is left uninterpreted.
# A plain value runs to the line's end, trailing blanks included (``_front_title`` trims
# them): a lazy value before ``[ \t]*$`` rescanned a run of blanks at every character.
_YAML_TITLE = re.compile(
    r"^title[ \t]*:[ \t]*(?:\"([^\"\\\r\n]+)\"[ \t]*|'([^'\r\n]+)'[ \t]*|"
    r"([^\s\[\]{}|>&*!%@`#\"',?:-][^\r\n]*|-(?=\S)[^\r\n]*))\r?$",
    re.MULTILINE,
)
_TOML_TITLE = re.compile(
    r"^title[ \t]*=[ \t]*(?:\"([^\"\\\r\n]+)\"|'([^'\r\n]+)')[ \t]*\r?$", re.MULTILINE
)


def _front_title(content: str, start: int, end: int, fmt: str) -> tuple[int, int] | None:
    """Where the front matter's ``title`` value lies in ``content[start:end]``, if plain."""
    pattern = _YAML_TITLE if fmt == "yaml" else _TOML_TITLE
    found = pattern.search(content, start, end)
    if found is None:
        return None
    group = next(index for index in (1, 2, 3) if found.group(index) is not None)
    low, high = found.span(group)
    if group == 3:
        high = low + len(content[low:high].rstrip(" \t"))
    value = content[low:high]
    if fmt == "yaml" and group == 3 and (" #" in value or ": " in value):
        return None  # a comment or a mapping: not a plain title
    if not value.strip() or high - low > TITLE_MAX:
        return None
    return low, high


def _front_matter(content: str) -> _FrontMatter | None:
    """YAML or TOML front matter at the very start, or None; its text is not interpreted."""
    opening = _FRONT_OPEN.match(content)
    if opening is None:
        return None
    delimiter = opening.group(1)
    closing = _FRONT_CLOSE[delimiter].search(content, opening.end())
    if closing is None:
        return None
    raw = content[opening.end() : closing.start()]
    fmt = "yaml" if delimiter == "---" else "toml"
    title = _front_title(content, opening.end(), closing.start(), fmt)
    return _FrontMatter(closing.end(), raw, fmt, title)


class MarkdownNormalizer:
    """Reads Markdown ``Document.content`` into a validated ``NormalizedDocument``.

    Options (``max_depth`` and ``max_table_cells`` change output, so a non-default value
    is part of ``identity``; ``max_characters`` only decides whether input is accepted):

    * ``max_characters`` (100,000,000): longer input raises ``NormalizationError``.
    * ``max_depth`` (100): block containers (lists, items, quotes, footnotes, tables)
      nested deeper are not made nodes; their source is owned, as text, by the deepest
      container kept, and a diagnostic says where.
    * ``max_table_cells`` (2,000,000): table cells in the whole document, counting the
      empty cells GFM pads short rows with (a one-line header can otherwise turn a small
      input into billions of cells); more raises ``NormalizationError``.
    """

    # v2: HTML blocks of comments only are excluded as "comment".
    # v3: MyST targets (a "(label)=" paragraph) are excluded as "markup".
    # v4: labels with spaces too; tags-only HTML blocks ("markup"), badge rows ("badges").
    # v5: MyST fences of navigation and autodoc directives (```{toctree}```) are "markup".
    # v6: link bars (a paragraph of three or more links only) are "navigation".
    # v7: tables of contents (a top-level list of in-page links only) are "navigation".
    # v8: link bars only at the top level (a footnote or an item of links stays).
    # v9: thematic breaks (``---``) are "markup".
    # v10: an HTML block of one heading element (``<h1 align="center">``) is a heading.
    # v11: other HTML blocks show the readable text the HTML adapter reads from them (its
    #      identity is part of this one: its reading decides those blocks).
    # v12: a paragraph of inline HTML tags only (``<a id="x"></a>``) is "markup".
    # v13: a front matter title heads a document without a level-1 heading.
    # v14: a MyST autodoc fence with text of its own stays a block.
    # v15: MDX imports and container fence lines are markup; a heading's attribute list
    #      ({#id .class}) is not part of its title.
    # v16: a lone in-page link ("[⬆ back to top](#top)") and HTML blocks that only move
    #      within the page (a <details> table of contents, "(back to top)") are navigation.
    # v17: container fence lines at the edges of a paragraph (":::tip Title" over the
    #      text, ":::" under it) are markup; the title stays.
    # v18: an HTML heading whose content is its plain title owns the title alone; its
    #      tags are markup. A label defined three times or more is as many definitions
    #      (each parser pass reports a label once: stretches are read again).
    # v19: a heading's title leaves out the images before its first word and after its
    #      last (badges); a heading of inline HTML only is named by its images' alt.
    # v20: an HTML comment ends at its first "-->" when deciding whether a block is
    #      comments or tags only (a later "-->" no longer extends it).
    # v21: an HTML heading element of three or more links and next to no other words is
    #      navigation (Gatsby's "Quickstart · Tutorial · Plugins"), not a section title.
    # v22: a heading element closing an HTML block of tags only (a centred logo over the
    #      title) is the block's heading; an HTML heading's title may have blank lines
    #      and indentation around it and still own the title alone.
    # v23: closing tags alone may follow that heading element in its block.
    # v24: when more follows it, the heading element is a leaf and the rest of the block
    #      an HTML block of its own under it (logo, title and tagline in one block).
    # v25: an HTML block of a link bar (three or more links and separators on a line, with
    #      maybe linked badges) is navigation, as a Markdown link bar is.
    # v26: a badge row of HTML-linked images and Markdown badges together is badges.
    # v27: in an HTML block, a line of linked images only is badges, beside its text.
    # v28: an HTML heading whose one run of text between tags is its title owns that run
    #      alone, its tags (a logo's too) markup.
    # v29: a comment left open in an HTML heading runs to its end, as in HTML.
    # v30: a table's first row of pictures only is data, not a header (picture grids).
    # v31: a table of contents may name its targets by reference ("* [Formats]" with
    #      "[Formats]: #formats" further down).
    identity = f"markdown:pyromark-{_pyromark_version()}:v31+{HtmlNormalizer.identity}"

    def __init__(
        self,
        *,
        max_characters: int = 100_000_000,
        max_depth: int = 100,
        max_table_cells: int = 2_000_000,
    ) -> None:
        check_positive(
            "MarkdownNormalizer",
            {
                "max_characters": max_characters,
                "max_depth": max_depth,
                "max_table_cells": max_table_cells,
            },
        )
        pyromark = require("pyromark", extra="normalization", feature="Markdown normalization")
        options = pyromark.Options
        self._pyromark: Any = pyromark
        self._options: Any = (
            options.ENABLE_TABLES
            | options.ENABLE_FOOTNOTES
            | options.ENABLE_STRIKETHROUGH
            | options.ENABLE_TASKLISTS
            | options.ENABLE_GFM
        )
        self._parser: Any = pyromark.Markdown(options=self._options)
        self.max_characters = max_characters
        self._limits = TreeLimits(max_depth=max_depth, max_table_cells=max_table_cells)
        self._html = HtmlNormalizer()  # reads HTML blocks (see _markdown_html)
        # The class attribute names the installed pyromark (its output can change with
        # it); an instance adds every option that changes output.
        self.identity = refined_identity(
            type(self).identity,
            {"max_depth": max_depth, "max_table_cells": max_table_cells},
            {"max_depth": 100, "max_table_cells": 2_000_000},
        )

    def normalize(self, document: Document) -> NormalizedDocument:
        content = document.content
        check_size("MarkdownNormalizer", document, self.max_characters)
        front = _front_matter(content)
        base = front.end if front is not None else 0
        body = content[base:] if base else content
        diagnostics: list[str] = []
        starts = segments.plan(body)
        draft: DraftTree | None = None
        parse_text, data = body, b""
        if starts is not None:
            parse_text, data = _encoded(body, base, diagnostics)
            draft = self._draft_in_pieces(parse_text, data, starts)
        if draft is None:  # small, or a cut fell inside a block: parsed whole
            draft, parse_text, data = self._draft_whole(parse_text, data, base, diagnostics)
        to_char = _char_map(draft, data, len(data) == len(parse_text), base)
        del data, parse_text, body
        return _assemble(document, draft, to_char, front, diagnostics, self._html)

    def _draft_whole(
        self, text: str, data: bytes, base: int, diagnostics: list[str]
    ) -> tuple[DraftTree, str, bytes]:
        """The draft of ``text`` parsed in one go, and the text and bytes parsed (``data``
        if already encoded)."""
        parser = self._parser
        # The parser runs first: reading the str as UTF-8 caches that encoding on it, so
        # the encode below is a copy instead of a second encoding pass (non-ASCII text).
        try:
            events = parser.events_with_range(text, merge_text=True)
        except UnicodeEncodeError:
            text = _parseable(text, base, diagnostics)
            events = parser.events_with_range(text, merge_text=True)
        data = data or text.encode("utf-8")
        find = _definition_finder(parser, data, text)
        # Peak memory: the event stream goes as soon as it is walked (the caller drops
        # the encoded bytes before the tree is built); each is about the input's size.
        draft = build_draft(data, ((0, events, {}, None),), self._limits, find)
        del events
        return draft, text, data

    def _draft_in_pieces(self, text: str, data: bytes, starts: list[int]) -> DraftTree | None:
        """The draft of ``text`` parsed a piece at a time (``_markdown_segments``), or
        None when it must be parsed whole."""
        found, overrides, spans = segments.definitions(
            self._parser.reference_definitions, text, starts
        )
        find = _definition_finder(self._parser, data, text, spans)
        parser = self._pyromark.Markdown(
            options=self._options, broken_link_callback=segments.resolver(found)
        )

        def parse(piece: str) -> Any:
            return parser.events_with_range(piece, merge_text=True)

        try:
            walked = segments.pieces(parse, text, data, starts, overrides)
            return build_draft(data, walked, self._limits, find)
        except segments.UnsplittableError:
            return None


def _encoded(body: str, base: int, diagnostics: list[str]) -> tuple[str, bytes]:
    """The text to parse (``body``, lone surrogates replaced) and its UTF-8 bytes."""
    try:
        return body, body.encode("utf-8")
    except UnicodeEncodeError:
        text = _parseable(body, base, diagnostics)
        return text, text.encode("utf-8")


def _parseable(body: str, base: int, diagnostics: list[str]) -> str:
    """``body`` with lone surrogates (which cannot be encoded) replaced for parsing."""
    first = _SURROGATE.search(body)
    diagnostics.append(
        "lone surrogates replaced by U+FFFD for parsing only (first at offset "
        f"{base + (first.start() if first else 0)})"
    )
    return _SURROGATE.sub("\ufffd", body)


def _definition_finder(
    parser: Any, data: bytes, parse_text: str, whole: list[tuple[int, int]] | None = None
) -> Callable[[int, int], list[tuple[int, int]]]:
    """``build_draft``'s ``find_definitions``: pyromark's link reference definitions.

    ``whole``: the whole document's, when the pieces it is parsed in were read already
    (``segments.definitions``: never the whole str at once)."""

    def definitions(start: int, end: int) -> list[tuple[int, int]]:
        if (start, end) != (0, len(data)):
            # Gap bounds lie on character boundaries (ASCII whitespace was trimmed).
            text, base = data[start:end].decode(), start
        elif whole is not None:
            return whole
        else:
            text, base = parse_text, 0
        found = parser.reference_definitions(text).values()
        spans = ((item["span"]["start"], item["span"]["end"]) for item in found)
        return sorted((base + first, base + last) for first, last in spans)

    return definitions


def _char_map(draft: DraftTree, data: bytes, ascii_only: bool, base: int) -> ByteToChar:
    """The byte-to-code-point map of every offset in ``draft`` (identity for ASCII)."""
    if ascii_only:  # a byte offset is a code-point offset
        return ByteToChar(base)
    wanted = 2 * len(draft.nodes) + 2 * (len(draft.units) // 3) + len(draft.exclusion_bounds)
    found = ByteToChar.sparse(data, base, most=wanted)  # while cheaper per run than offset
    if found is not None:
        return found
    offsets: list[int] = []
    # map() with attrgetter/itemgetter and slices of the flat lists read every offset
    # from C: no bytecode each.
    offsets.extend(map(_start, draft.nodes))
    offsets.extend(map(_end, draft.nodes))
    offsets.extend(draft.units[0::3])
    offsets.extend(draft.units[1::3])
    offsets.extend(draft.exclusion_bounds)
    offsets.extend(map(_second, draft.diagnostics))
    return ByteToChar.dense(data, offsets, base)


def _assemble(
    document: Document,
    draft: DraftTree,
    to_char: ByteToChar,
    front: _FrontMatter | None,
    diagnostics: list[str],
    html: HtmlNormalizer,
) -> NormalizedDocument:
    """Map the draft's byte offsets to code points and build the immutable tree.

    This runs once per node, unit and exclusion (hundreds of thousands per corpus), so
    it converts offsets in bulk and keeps nodes, units and exclusions as columns
    (``Nodes``, ``Units``, ``Exclusions``: no value per node, unit or exclusion); the
    loop filling the node columns is compiled (``node_columns``).
    It consumes ``draft``: unit and exclusion lists are emptied once converted and the
    draft nodes dropped once the columns are built.
    """
    content = document.content
    base = front.end if front is not None else 0
    draft_nodes, draft_units, bounds = draft.nodes, draft.units, draft.exclusion_bounds
    many = to_char.many
    node_starts = many(list(map(_start, draft_nodes)))
    node_ends = many(list(map(_end, draft_nodes)))
    unit_starts = many(draft_units[0::3])
    unit_ends = many(draft_units[1::3])
    owners = draft_units[2::3].tolist()  # a list, as the HTML splice and NodeIds take
    del draft_units[:]
    exclusion_starts = many(bounds[0::2])
    exclusion_ends = many(bounds[1::2])
    reasons = draft.exclusion_reasons
    del bounds[:]
    diagnostics.extend(
        template.replace("{offset}", str(to_char(offset))) for template, offset in draft.diagnostics
    )
    to_char.close()  # every offset is converted: free the table (non-ASCII input)
    html_blocks = {index: (node_starts[index], node_ends[index]) for index in draft.html_blocks}
    shown = (
        read_html_blocks(
            content,
            html_blocks,
            (unit_starts, unit_ends, owners),
            (exclusion_starts, exclusion_ends, reasons),
            html,
        )
        if html_blocks
        else {}
    )

    prefix = document.id
    root_children = draft.root_children
    level_one = [
        draft_nodes[child].title or ""
        for child in root_children
        if draft_nodes[child].kind == "section" and draft_nodes[child].level == 1
    ]
    root_title = level_one[0] if level_one else ""
    # A front matter title heads a document with no level-1 heading of its own (see the
    # module docs): two nodes before the draft's, so the draft's ids move up by two.
    titled = front.title if front is not None and not level_one else None
    shift = 2 if titled else 0
    # Node ``index`` of the draft is node ``index + shift`` of the tree (the root stays
    # 0); ids are numbered by position (``Nodes``).
    for index in draft.noted:  # link, image and footnote lists become tuples
        attributes = draft_nodes[index].attributes
        if attributes is not None:
            for key in _LIST_ATTRIBUTES:
                found = attributes.get(key)
                if type(found) is list:
                    attributes[key] = tuple(found)
    kinds: list[str] = ["document"]
    texts: list[str | None] = [root_title]
    starts = array("q", (0 if content else -1,))
    ends = array("q", (len(content) if content else -1,))
    parents = array("q", (-1,))
    levels: list[int | None] = [None]
    packed: list[PackedAttributes] = [None]
    top = 0  # the position of the draft's top-level nodes' parent
    if titled:
        title_start, title_end = titled
        root_title = texts[0] = content[title_start:title_end]
        kinds += ("section", "heading")
        texts += (root_title, root_title)
        starts.extend((title_start, title_start))
        ends.extend((len(content), title_end))
        parents.extend((0, 1))
        levels += (1, 1)
        packed += (None, None)
        top = 1  # the draft's top-level nodes: the section's
    # Attributes go to the columns packed as ``Nodes`` keeps them; equal ones share one
    # pair, a leaf's links, images and footnotes are its own (see ``AttributePacker``).
    columns = node_columns(draft_nodes, shift, top, _OWN_ATTRIBUTES, _PAIRED_ATTRIBUTES)
    kinds += columns[0]
    texts += columns[1]
    parents.extend(columns[2])
    levels += columns[3]
    packed += columns[4]
    del columns
    starts.extend(node_starts[1:])
    ends.extend(node_ends[1:])
    del node_starts, node_ends
    maps: dict[int, array[int]] = {}
    for index, (text, packed_map) in shown.items():  # HTML blocks show their readable text
        texts[index + shift] = text
        maps[index + shift] = packed_map
    nodes = Nodes(
        content,
        prefix,
        kinds,
        texts,
        (starts, ends),
        parents,
        levels,
        packed_serialization=maps,
        packed_attributes=packed,
    )
    del kinds, texts, starts, ends, parents, levels, packed
    draft_nodes.clear()  # garbage now
    # Units name their owners by position: no id string is kept for them (``NodeIds``).
    owner_positions = [owner + shift if owner else 0 for owner in owners] if shift else owners
    if titled:  # the title's value is the heading's unit; the rest stays front matter
        unit_starts.insert(0, titled[0])
        unit_ends.insert(0, titled[1])
        owner_positions.insert(0, 2)
        exclusion_starts[:0] = array("q", (0, titled[1]))
        exclusion_ends[:0] = array("q", (titled[0], base))
        reasons[:0] = ("front_matter", "front_matter")
    elif base:
        exclusion_starts.insert(0, 0)
        exclusion_ends.insert(0, base)
        reasons.insert(0, "front_matter")
    units = Units.from_offsets(
        unit_starts, unit_ends, NodeIds(nodes, owner_positions), id_prefix=f"{prefix}:u"
    )
    del owner_positions
    exclusions = Exclusions.from_offsets(exclusion_starts, exclusion_ends, reasons)
    metadata: dict[str, Any] = {}
    if front is not None:
        metadata = {"front_matter": front.raw, "front_matter_format": front.format}
    result = NormalizedDocument(
        document,
        "markdown",
        nodes,
        units,
        exclusions,
        tuple(diagnostics),
        metadata,
    )
    # The work lists are garbage now: drop them before validate() builds its own sets,
    # or both count toward the peak (together about the input's size).
    del nodes, units, exclusions
    del unit_starts, unit_ends, exclusion_starts, exclusion_ends
    del owners, reasons
    return result.validate()
