"""Walk pulldown-cmark events into a draft tree and a coverage partition, in byte offsets.

One pass over the event stream with an explicit stack (never recursion, so 100,000
nested block quotes cannot raise ``RecursionError``). This module only dispatches events,
most frequent first; ``_markdown_draft.Walker`` owns the state and the ownership rules.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fastrag.exceptions import NormalizationError
from fastrag.normalization._attributes import AttributePacker, PackedAttributes
from fastrag.normalization.formats._markdown_draft import (
    CONTAINER_TAGS,
    PLAIN_INLINE,
    DraftNode,
    DraftTree,
    TreeLimits,
    Walker,
)
from fastrag.normalization.formats._markdown_segments import Check, resolved_target

__all__ = ["TITLE_MAX", "DraftTree", "TreeLimits", "build_draft", "node_columns"]

_ALIGN = {"None": "none", "Left": "left", "Center": "center", "Right": "right"}
_LIST_MARKER = re.compile(rb"[ \t]*([-+*]|[0-9]{1,9}[.)])")
_BULLETS = {b"-": "-", b"*": "*", b"+": "+"}
_FENCE = re.compile(rb"[ \t]*(`{3,}|~{3,})")
_LEAF_ENDS = frozenset({"Paragraph", "Heading", "CodeBlock", "HtmlBlock", "TableRow"})
# Inline events whose string is readable text; raw inline HTML is not.
_TEXT_KEYS = ("InlineMath", "DisplayMath")


def _start_paragraph(walker: Walker, tag: Any, start: int) -> None:
    walker.open_leaf("paragraph", start)


def _start_heading(walker: Walker, tag: Any, start: int) -> None:
    level = int(tag["Heading"]["level"][1])
    if walker.block_depth == 0:
        walker.open_section(start, level)
    walker.open_leaf("heading", start, level)
    walker.heading_parts = []
    walker.collecting = True


# MyST directives written as fences (```{toctree}```) whose body names documents,
# objects or files, not content: navigation generates it from elsewhere.
_MYST_MARKUP = frozenset({"{toctree}", "{contents}", "{include}", "{literalinclude}"})
# autodoc's, which pull documentation from code that is never imported: markup when their
# body holds only options (``:members:``); text the author wrote keeps the fence a block.
_MYST_AUTODOC = frozenset(
    {
        "{automodule}",
        "{autoclass}",
        "{autofunction}",
        "{automethod}",
        "{autoattribute}",
        "{autodata}",
        "{autoexception}",
        "{autosummary}",
    }
)


def _myst_markup(tag: Any, data: bytes, start: int, end: int) -> bool:
    """Whether the fenced block ``data[start:end]`` is a MyST directive of markup (its
    source is read only for autodoc's, whose body decides)."""
    kind = tag["CodeBlock"]
    if not isinstance(kind, dict):
        return False
    words = kind.get("Fenced", "").split()
    if not words:
        return False
    if words[0] in _MYST_MARKUP:
        return True
    if words[0] not in _MYST_AUTODOC:
        return False
    body = data[start:end].splitlines()[1:]
    if body and body[-1].lstrip()[:3] in (b"```", b"~~~"):
        body.pop()  # the closing fence
    return all(not line.strip() or line.lstrip().startswith(b":") for line in body)


def _start_code(walker: Walker, tag: Any, start: int) -> None:
    kind = tag["CodeBlock"]
    attributes: dict[str, Any] = {}
    if isinstance(kind, dict):
        info = kind.get("Fenced", "")
        words = info.split()
        if words:
            attributes["language"] = words[0]
        fence = _FENCE.match(walker.data, max(start, walker.cursor))
        if fence is not None:
            attributes["fence"] = fence.group(1).decode("ascii")
    else:
        # Indented code: give the block its first line's indentation back, so its text
        # is the code as written (pyromark starts the range after four columns). Each
        # byte is stepped over at most once: the walk stops at the cursor.
        data, floor = walker.data, walker.cursor
        while start > floor and data[start - 1] in b" \t":
            start -= 1
    walker.open_leaf("code", start, None, attributes or None)


# An HTML block that is one heading element — ``<h1 align="center">Project</h1>``, how a
# README centres its title — is a heading GitHub renders as one: it opens a section.
# A heading element at the start of an HTML block; closing tags alone may follow it
# (``<p align="center"><img …><h1>Sequelize</h1></p>``: see ``_html_heading``).
_HTML_HEADING = re.compile(
    rb"[ \t\r\n]*<[hH]([1-6])(?:[ \t\r\n][^<>]*)?>(.*?)</[hH]\1[ \t\r\n]*>", re.DOTALL
)
# A comment left open runs to the end, as in HTML: read once, not from every "<!--" again.
_HTML_TAG = re.compile(r"<!--.*?(?:-->|\Z)|<[^<>]*>", re.DOTALL)
_HTML_SPACE_BYTES = b" \t\n\r\f"
_HTML_TAG_BYTES = re.compile(_HTML_TAG.pattern.encode(), re.DOTALL)
_HEADING_OPEN = re.compile(rb"<[hH][1-6][ \t\r\n/>]")
# A link and what it shows, for telling a bar of links dressed as a heading (Gatsby's
# ``<h2>`` of "Quickstart · Tutorial · Plugins …") from a title that links somewhere.
_HTML_LINK = re.compile(r"<a\b[^<>]*>(.*?)</a[ \t\r\n]*>", re.DOTALL | re.IGNORECASE)
_LINK_BAR_LINKS = 3
"""Links a heading needs to be a bar of links, with next to no words of its own."""
_LINK_BAR_WORDS = 2
"""Words a bar of links may have outside its links ("Support:", "Docs |")."""
_LINK_BAR_BYTES = 20_000
"""Longer heading elements are not read for links (the link scan stays bounded)."""
TITLE_MAX = 300
"""Longest readable title taken from an HTML heading (or front matter): a longer ``<h4>``
is a banner (a README's language bar, a paragraph of links), not a name for its
section."""


HtmlHeading = tuple[int, str, tuple[int, int, int] | None]
"""``(level, title, plain)`` of an HTML heading element (see ``_html_heading``)."""


def _html_heading(walker: Walker, start: int, end: int) -> HtmlHeading | None:
    """``(level, title, plain)`` when the HTML block ``[start, end)`` is one heading
    element with readable text (tags dropped, entities decoded, whitespace collapsed).

    ``plain``: where the title starts and ends and the end tag ends, when the title is
    the element's one run of text between tags, exactly as written. Its tags are then
    excluded as markup and the heading leaf owns the title alone: a README's ``<h1
    align="center">Rocket</h1>`` (or ``<h2><a …><img …></a><br>HTTPie CLI</h2>``) was
    chunk text with its tags."""
    match = _HTML_HEADING.match(walker.data, start, end)
    if match is None or not walker.shows_no_text(match.end(), end):
        return None
    inner = match.group(2).decode("utf-8", "replace")
    title = " ".join(html.unescape(_HTML_TAG.sub(" ", inner)).split())
    if not title or len(title) > TITLE_MAX:
        return None
    run = _title_run(match.group(2), title)
    if run is None:
        return int(match.group(1)), title, None
    tag_end = start + len(walker.data[start:end].rstrip())  # closing tags after it too
    return int(match.group(1)), title, (match.start(2) + run[0], match.start(2) + run[1], tag_end)


def _title_run(inner: bytes, title: str) -> tuple[int, int] | None:
    """The byte range of ``inner`` that is its only run of text between tags, without
    the whitespace around it, when that run is ``title`` as written; else None."""
    runs, position = [], 0
    for tag in _HTML_TAG_BYTES.finditer(inner):
        runs.append((position, tag.start()))
        position = tag.end()
    runs.append((position, len(inner)))
    shown = [(low, high) for low, high in runs if inner[low:high].strip(_HTML_SPACE_BYTES)]
    if len(shown) != 1:
        return None
    low, high = shown[0]
    text = inner[low:high]
    low += len(text) - len(text.lstrip(_HTML_SPACE_BYTES))
    high -= len(text) - len(text.rstrip(_HTML_SPACE_BYTES))
    return (low, high) if inner[low:high].decode("utf-8", "replace") == title else None


def _first_heading(
    walker: Walker, start: int, end: int
) -> tuple[int, HtmlHeading, int | None] | None:
    """The heading element the HTML block ``[start, end)`` shows first, after tags only:
    where it starts, the heading, and where the rest of the block starts when more than
    closing tags follows it (None when nothing does). The tags before it are excluded as
    markup, as a block of tags alone is.

    READMEs centre a logo over their title in one block (``<p align="center"><img
    alt="Gatsby" …></p>`` then ``<h1>Gatsby</h1>``, no blank line between), often with a
    tagline under it (Zod's, Yargs'): read as one block, the title was text under no
    heading. The rest is read as an HTML block of its own, under the title.
    """
    opening = _HEADING_OPEN.search(walker.data, start, end)
    if opening is None or not walker.shows_no_text(start, opening.start()):
        return None
    at = opening.start()
    match = _HTML_HEADING.match(walker.data, at, end)
    if match is None:
        return None
    rest = None if walker.shows_no_text(match.end(), end) else match.end()
    heading = _html_heading(walker, at, end if rest is None else rest)
    if heading is None:
        return None
    if walker.data[start:at].strip():
        walker.tags_only(start, at)
    return at, heading, rest


def _open_html_heading(walker: Walker, start: int, heading: HtmlHeading) -> None:
    """Open the section (at top level) and the heading leaf of an HTML heading element."""
    level, title, plain = heading
    if walker.block_depth == 0:
        walker.open_section(start, level)
    if plain is not None:  # the leaf owns the title, its tags are markup
        walker.leading_markup(start, plain[0])
        walker.trailing_markup = (plain[1], plain[2])
    walker.open_leaf("heading", start, level)
    walker.heading_parts = [title]  # its Html events add nothing; close_leaf reads it


def _heading_link_bar(walker: Walker, start: int, end: int) -> bool:
    """Whether the HTML block ``[start, end)`` is one heading element of links and
    separators only: navigation, not a title for what follows."""
    match = _HTML_HEADING.match(walker.data, start, end)
    if (
        match is None
        or len(match.group(2)) > _LINK_BAR_BYTES
        or not walker.shows_no_text(match.end(), end)
    ):
        return False
    inner = match.group(2).decode("utf-8", "replace")
    if len(_HTML_LINK.findall(inner)) < _LINK_BAR_LINKS:
        return False
    outside = html.unescape(_HTML_TAG.sub(" ", _HTML_LINK.sub(" ", inner)))
    words = [word for word in outside.split() if any(c.isalnum() for c in word)]
    return len(words) <= _LINK_BAR_WORDS


def _start_html(walker: Walker, tag: Any, start: int) -> None:
    walker.open_leaf("html_block", start)
    walker.html_blocks.append(walker.leaf)


def _start_row(walker: Walker, tag: Any, start: int) -> None:
    if walker.header_pending:
        walker.header_pending = False
        walker.close_leaf(start)
    walker.open_leaf("table_row", start, None, {"header": tag == "TableHead"})


# GFM requires a header row; READMEs laying out a grid of avatars, logos or screenshots
# (all-contributors, sponsors, "used by") put the first row of pictures there.
_CELL_BORDER = re.compile(rb"(?<!\\)\|")
_PICTURE = re.compile(rb"<img\b|!\[", re.IGNORECASE)


def _data_in_header(walker: Walker, end: int) -> None:
    """A header row whose every filled cell shows a picture names no column: it is the
    grid's first row of data (``{"header": False}``), so packing never repeats it as the
    schema of a piece (a row of avatars with their links can outweigh a whole chunk)."""
    node = walker.nodes[walker.leaf]
    row = walker.data[node.start : end].strip().strip(b"|")
    cells = [cell for cell in map(bytes.strip, _CELL_BORDER.split(row)) if cell]
    if cells and all(_PICTURE.search(cell) for cell in cells) and node.attributes:
        node.attributes["header"] = False


def _start_list(walker: Walker, tag: Any, start: int) -> None:
    first = tag["List"]
    attributes: dict[str, Any] = {"ordered": first is not None}
    if first is not None:
        attributes["start"] = first
    if walker.open_container("list", start, attributes):
        walker.list_depth += 1


def _start_item(walker: Walker, tag: Any, start: int) -> None:
    cursor = walker.cursor
    position = start if start > cursor else cursor
    label = _BULLETS.get(walker.data[position : position + 1])
    if label is None:  # ordered, or indented: read the marker as written
        marker = _LIST_MARKER.match(walker.data, position)
        label = marker.group(1).decode("ascii") if marker is not None else ""
    if walker.open_container("list_item", start, walker.item_attributes(label)):
        walker.items.append(walker.stack[-1])


def _start_quote(walker: Walker, tag: Any, start: int) -> None:
    alert = tag["BlockQuote"]
    if alert is None:
        walker.open_container("blockquote", start, None)
    else:
        walker.open_container("admonition", start, {"name": str(alert).lower()})


def _start_footnote(walker: Walker, tag: Any, start: int) -> None:
    walker.open_container("footnote", start, {"label": tag["FootnoteDefinition"]})


def _start_table(walker: Walker, tag: Any, start: int) -> None:
    align = tuple(_ALIGN.get(value, "none") for value in tag["Table"])
    walker.open_container("table", start, {"align": align})


_START_HANDLERS = {
    "Paragraph": _start_paragraph,
    "Heading": _start_heading,
    "CodeBlock": _start_code,
    "HtmlBlock": _start_html,
    "TableHead": _start_row,
    "TableRow": _start_row,
    "List": _start_list,
    "Item": _start_item,
    "BlockQuote": _start_quote,
    "FootnoteDefinition": _start_footnote,
    "Table": _start_table,
}


def _start(walker: Walker, tag: Any, start: int, end: int) -> None:
    """Dispatch a block-level Start tag (the hottest inline ones never get here)."""
    if walker.block_depth == 0 and walker.leaf < 0:
        walker.top_start = start  # a top-level block: see build_draft's check
    name = tag if type(tag) is str else next(iter(tag))
    if name == "FootnoteDefinition":  # however deep (see build_draft's check)
        walker.footnote_labels.append(tag[name])
    if name in PLAIN_INLINE:
        return
    if name == "TableCell":
        walker.table_cells += 1
        if walker.table_cells > walker.limits.max_table_cells:
            raise NormalizationError(
                f"markdown table cells exceed max_table_cells="
                f"{walker.limits.max_table_cells} (GFM pads short rows with empty cells); "
                "raise MarkdownNormalizer(max_table_cells=...) or split the table"
            )
        return
    if walker.skipped and name not in CONTAINER_TAGS:
        return
    if name == "Link" or name == "Image":
        if name == "Image" and walker.heading_parts is not None:
            walker.image_marks.append(len(walker.heading_parts))
        walker.links.append((name, [], resolved_target(tag[name], walker.overrides)))
        walker.collecting = True
        return
    if name == "HtmlBlock":
        if walker.comment_block(start, end) or walker.tags_only(start, end):
            return
        if _heading_link_bar(walker, start, end) and walker.navigation_block(start, end):
            return
        heading, rest = _html_heading(walker, start, end), None
        if heading is None:
            found = _first_heading(walker, start, end)
            if found is not None:
                start, heading, rest = found
        if heading is not None:
            _open_html_heading(walker, start, heading)
            if rest is None:
                return
            walker.close_leaf(rest)  # the heading is a leaf; the rest opens below
            start = rest
    if (
        name == "CodeBlock"
        and _myst_markup(tag, walker.data, start, end)
        and walker.markup_block(start, end)
    ):
        return
    if name == "List" and not walker.list_depth and walker.contents_list(start, end):
        return
    if name == "Paragraph" and walker.markup_paragraph(start, end):
        return
    handler = _START_HANDLERS.get(name)
    if handler is not None:
        handler(walker, tag, start)


def _end(walker: Walker, tag: Any, end: int) -> None:
    """Close the leaf or container a block-level End tag ends."""
    name = tag if type(tag) is str else next(iter(tag))
    if name == "TableCell":
        return
    if name in CONTAINER_TAGS:
        if name == "Table" and walker.header_pending and not walker.skipped:
            walker.header_pending = False
            walker.close_leaf(end)
        if walker.close_container(end):
            if name == "List":
                walker.list_depth -= 1
            elif name == "Item":
                walker.items.pop()
        return
    if walker.skipped or walker.leaf < 0:
        return
    if name == "TableHead":
        walker.header_pending = True  # closed by the next row or the table's end
        _data_in_header(walker, end)
    elif name in _LEAF_ENDS:
        walker.close_leaf(end)


def build_draft(
    data: bytes,
    segments: Iterable[tuple[int, Iterable[tuple[Any, Any]], Mapping[str, str], Check | None]],
    limits: TreeLimits,
    find_definitions: Callable[[int, int], list[tuple[int, int]]],
) -> DraftTree:
    """Walk pyromark ``events_with_range`` streams into one draft tree of ``data``.

    ``segments`` are ``(base, events, overrides, check)`` in source order: the events of
    one piece of ``data`` parsed on its own, their byte ranges counted from ``base``,
    the reference labels whose targets an earlier piece decides, and a callable told,
    once the piece is walked, where its last top-level block starts and which footnotes
    it defines (one
    ``(0, events, {}, None)`` for a document parsed whole; ``_markdown_segments`` cuts
    large ones).
    ``find_definitions(start, end)`` returns the sorted byte spans of the link reference
    definitions pyromark finds in ``data[start:end]`` read on its own; it is only called
    when a document-level gap holds text.
    """
    walker = Walker(data, limits, find_definitions)
    text = walker.text
    end_link = walker.end_link
    links = walker.links  # never rebound: close_leaf clears it in place
    plain = PLAIN_INLINE
    for base, events, overrides, check in segments:
        walker.overrides = overrides
        for event, span in events:
            # Ordered by frequency (text, tags, code); the loop body is the hot path, so
            # membership tests (no method call) pick the event's one key. The three str
            # events ("SoftBreak", "HardBreak", "Rule") come last: for them these tests
            # are substring tests, false for all three, so the million dict events skip
            # a type check each. Text events, the most frequent, read no range.
            if "Text" in event:
                if walker.collecting:  # Walker.text, inlined
                    value = event["Text"]
                    parts = walker.heading_parts
                    if parts is not None:
                        parts.append(value)
                    if links:
                        links[-1][1].append(value)
                continue
            if "Start" in event:
                tag = event["Start"]
                if type(tag) is str:
                    if tag in plain:
                        continue
                    if tag == "Item":  # a container: open_container handles max_depth
                        _start_item(walker, tag, base + span["start"])
                        continue
                elif not walker.skipped:
                    link = tag.get("Link")
                    if link is not None:  # the most frequent tag in real documents
                        target = resolved_target(link, overrides) if overrides else link["dest_url"]
                        links.append(("Link", [], target))
                        walker.collecting = True
                        continue
                _start(walker, tag, base + span["start"], base + span["end"])
                continue
            if "End" in event:
                tag = event["End"]
                if type(tag) is str:
                    if tag in plain:
                        continue
                    if tag == "Link" or tag == "Image":
                        end_link()
                        continue
                    if tag == "Item":
                        if walker.close_container(base + span["end"]):
                            walker.items.pop()
                        continue
                _end(walker, tag, base + span["end"])
                continue
            if "Code" in event:
                if walker.collecting:
                    text(event["Code"])
                continue
            if "Html" in event:
                continue  # raw HTML renders no text and records nothing (Walker.other)
            if "InlineHtml" in event:  # likewise, but a heading's may name it by alt text
                if walker.heading_parts is not None:
                    walker.heading_html.append(event["InlineHtml"])
                continue
            if type(event) is str:  # "SoftBreak", "HardBreak" or "Rule"
                if event == "Rule":
                    if not walker.skipped:  # a horizontal rule shows no text: syntax only
                        walker.markup_block(base + span["start"], base + span["end"])
                elif walker.collecting:
                    text(" ")
                continue
            if walker.collecting:
                for key in _TEXT_KEYS:
                    value = event.get(key)
                    if value is not None:
                        text(value)
                        break
            walker.other(event)
        if check is not None:
            check(walker.top_start, walker.footnote_labels)
            walker.footnote_labels = []
    if walker.leaf >= 0:  # a truncated stream still ends in a valid partition
        walker.close_leaf(walker.size)
    stack = walker.stack
    while len(stack) > 1:
        walker.fill(walker.size)
        index = stack.pop()
        walker.finish(index)
        if walker.nodes[index].kind != "section":
            walker.block_depth -= 1
    walker.fill(walker.size)
    return DraftTree(
        walker.nodes,
        walker.root_children,
        walker.units,
        walker.exclusion_bounds,
        walker.exclusion_reasons,
        walker.diagnostics,
        walker.noted,
        walker.html_blocks,
    )


def node_columns(
    draft_nodes: list[DraftNode],
    shift: int,
    top: int,
    own_keys: frozenset[str],
    flat_keys: frozenset[str] = frozenset(),
) -> tuple[list[str], list[str | None], list[int], list[int | None], list[PackedAttributes]]:
    """Kinds, texts, parents, levels and packed attributes of the draft's nodes but the
    root, as the tree's node columns take them.

    Node ``index`` of the draft is node ``index + shift`` of the tree; the draft's
    top-level nodes hang from position ``top``. A leaf without a title takes its source
    slice (``None``), a container the empty string. Attributes holding one of
    ``own_keys`` (a leaf's links) are packed as its own, the rest shared with equal
    ones (``AttributePacker``); ``flat_keys`` hold pairs the draft keeps flat (links).
    Compiled: it runs once per node of every document.
    """
    packer = AttributePacker(flat_keys)
    kinds: list[str] = []
    texts: list[str | None] = []
    parents: list[int] = []
    levels: list[int | None] = []
    packed: list[PackedAttributes] = []
    for index in range(1, len(draft_nodes)):
        node = draft_nodes[index]
        parent = node.parent
        parents.append(parent + shift if parent else top)
        kinds.append(node.kind)
        title = node.title
        texts.append(title if title is not None else None if node.leaf else "")
        levels.append(node.level)
        attributes = node.attributes
        if attributes is None:
            packed.append(None)
        elif own_keys.isdisjoint(attributes):
            packed.append(packer.shared(attributes))
        else:
            packed.append(packer.own(attributes))
    return kinds, texts, parents, levels, packed
