"""What each block-level start tag does to the draft tree, and how a block is finished.

One handler per ``Category`` in the ``START`` table. A handler either opens a node (a new
child of the current container) or, inside a leaf that cannot hold blocks (a heading, a
table row, a ``pre``), flattens the element into that leaf's text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from fastrag.normalization.formats._html_frames import (
    BOUNDARY,
    CELL,
    MAIN,
    TITLE,
    TITLE_TEXT,
    HeadFrame,
    HintFrame,
    LinkFrame,
)
from fastrag.normalization.formats._html_generators import RDOC_METHOD_LEVEL
from fastrag.normalization.formats._html_tags import (
    LANGUAGE_CLASS,
    Category,
    alt_value_span,
    attribute,
    is_navigation_link,
    ordered_label,
)
from fastrag.normalization.formats._html_text import (
    CONTAINER,
    FLAT,
    PARA,
    PRE,
    Block,
    add_generated,
    add_references,
    request_break,
)

if TYPE_CHECKING:
    from fastrag.normalization.formats._html_events import Attrs, TreeBuilder

__all__ = ["START", "void_element"]

_TITLE_END = re.compile(r"</title\s*>", re.IGNORECASE)
_TEXT_ALIGN = re.compile(r"text-align\s*:\s*(left|right|center)", re.IGNORECASE)
_DELIMITER = {"left": ":---", "right": "---:", "center": ":---:", "none": "---"}
_ITEM_CONTAINERS = ("list_item", "definition")
_IGNORED_LANGUAGES = ("default", "none")


def _number(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        number = int(value.strip())
    except ValueError:
        return None
    return number if abs(number) < 1_000_000_000 else None


def _language(attrs: Attrs) -> str | None:
    css = attribute(attrs, "class")
    if css:
        match = LANGUAGE_CLASS.search(css)
        if match is not None and match.group(1) not in _IGNORED_LANGUAGES:
            return match.group(1)
    return None


def _align(attrs: Attrs) -> str:
    if not attrs:
        return "none"
    value = attribute(attrs, "align")
    if value is None:
        style = attribute(attrs, "style")
        match = _TEXT_ALIGN.search(style) if style else None
        value = match.group(1) if match is not None else None
    value = value.strip().lower() if value else ""
    return value if value in _DELIMITER else "none"


def _node_or_flatten(tb: TreeBuilder, tag: str, kind: str, mode: int) -> Block | None:
    """Open a ``kind`` node, or flatten the element when the current leaf takes no blocks."""
    tb.boundary()
    if tb.owner is not None:
        tb.push(tag, BOUNDARY)
        return None
    block = tb.open_block(tag, kind, mode)
    tb.push_block(tag, block)
    return block


def _start_boundary(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    tb.boundary()
    if tag == "div" and attrs:
        language = _language(attrs)
        if language is not None:
            tb.push(tag, HintFrame(language))
            return
    tb.push(tag, BOUNDARY)


def _start_main(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    tb.boundary()
    tb.main += 1
    tb.push(tag, MAIN)


def _start_paragraph(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    _node_or_flatten(tb, tag, "paragraph", PARA)


def _start_heading(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    tb.end_layout_table()
    # h1-h6; or level 1: a page's title div (Doxygen's), the <title> heading a page
    if tag[0] == "h" and len(tag) == 2:
        level = int(tag[1])
        if tb.doxygen:
            # Doxygen's title outranks the page's own headings: a \page's \section is an
            # <h1> under it ("Special Commands" > "\addtogroup"), a class's groups <h2>.
            level = min(level + 1, 6)
    elif tb.rdoc and tag == "div":  # an RDoc method's heading (rdoc_method_heading)
        level = RDOC_METHOD_LEVEL
    else:
        level = 1
    # Ends an implicit paragraph (text directly in a div or section before the heading),
    # so that text does not make the heading a leaf of it.
    tb.boundary()
    _end_summary(tb)
    if tb.blocks:  # inside a list, quote, table …: a heading leaf that opens no section
        block = _node_or_flatten(tb, tag, "heading", FLAT)
        if block is not None:
            block.level = level
        return
    # Its section is decided when it closes with text (see _attach_section).
    block = Block("heading", FLAT, None, tb.pos, len(tb.tags))
    block.level = level
    if tb.outside_main_is_chrome and tb.main == 0:
        tb.outside_headings.append(block)  # kept only if content belongs to it
    tb.blocks.append(block)
    tb.owner = block
    tb.push(tag, block)


def _end_summary(tb: TreeBuilder) -> None:
    """A heading inside a ``<summary>`` ends the summary's paragraph, so it is a heading.

    ``summary`` reads as a paragraph (a disclosure widget's label), but HTML lets it hold
    a heading, and generators put their entry titles there: rustdoc's ``<details><summary>
    <section><h4 class="code-header">pub fn push(…)</h4>``. Without this the title would be
    flattened into the paragraph and the entry's docs would stay in the previous entry's
    section. The text before the heading (rustdoc's "1.0.0 · Source") stays a paragraph;
    the summary's element then ends like a ``div``, so text after the heading is read as
    it would be there. A summary without a heading is still one paragraph.
    """
    owner = tb.owner
    if owner is None or owner.kind != "paragraph" or not 0 <= owner.dom < len(tb.tags):
        return
    frames = tb.frames
    if tb.tags[owner.dom] != "summary" or frames[owner.dom] is not owner:
        return
    tb.close_block(owner, tb.pos)
    frames[owner.dom] = BOUNDARY
    # A link around the heading shows no text of the paragraph's. Only the links opened
    # inside the summary are looked at, never the whole stack (hostile nesting depth).
    for index in reversed(tb.open.get("a", ())):
        if index <= owner.dom:
            break
        frame = frames[index]
        if isinstance(frame, LinkFrame) and frame.owner is owner:
            frame.owner, frame.start = None, 0


def _start_pre(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    block = _node_or_flatten(tb, tag, "code", PRE)
    if block is None:
        return
    block.text_start = tb.tag_end
    language = _language(attrs) if attrs else None
    if language is None:
        for frame in reversed(tb.frames[-4:]):
            if isinstance(frame, HintFrame):
                language = frame.language
                break
    if language is not None:
        block.attrs["language"] = language


def _start_code(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    owner = tb.owner
    if owner is not None and owner.mode == PRE and not owner.dlen and attrs:
        language = _language(attrs)
        if language is not None:
            owner.attrs["language"] = language
    tb.push(tag, None)


def _start_list(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    block = _node_or_flatten(tb, tag, "list", CONTAINER)
    if block is None:
        return
    ordered = tag == "ol"
    block.attrs["ordered"] = ordered
    ancestor = block.parent
    while ancestor is not None and ancestor.kind != "list":
        ancestor = ancestor.parent
    block.list_depth = ancestor.list_depth + 1 if ancestor is not None else 1
    parent = block.parent
    block.prefix = parent.prefix if parent is not None and parent.kind in _ITEM_CONTAINERS else ""
    if ordered:
        start = _number(attribute(attrs, "start")) if attrs else None
        block.counter = 1 if start is None else start
        block.attrs["start"] = block.counter
        style = attribute(attrs, "type") if attrs else None
        block.style = style if style in ("a", "A", "i", "I") else "1"


def _start_item(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    tb.boundary()
    container = tb.container()
    if tb.owner is not None or container.kind != "list":
        tb.push(tag, BOUNDARY)
        return
    block = tb.open_block(tag, "list_item", CONTAINER)
    tb.push_block(tag, block)
    if block is None:
        return
    if container.attrs["ordered"]:
        value = _number(attribute(attrs, "value")) if attrs else None
        number = container.counter if value is None else value
        container.counter = number + 1
        label = ordered_label(number, container.style)
    else:
        label = "-"
    block.attrs["label"] = label
    block.attrs["depth"] = container.list_depth
    block.head = container.prefix + label + " "
    block.prefix = container.prefix + " " * (len(label) + 1)


def _start_in(tb: TreeBuilder, tag: str, parent_kind: str, kind: str, mode: int) -> Block | None:
    """Open ``kind`` only directly inside a ``parent_kind`` container; else flatten."""
    tb.boundary()
    if tb.owner is not None or tb.container().kind != parent_kind:
        tb.push(tag, BOUNDARY)
        return None
    block = tb.open_block(tag, kind, mode)
    tb.push_block(tag, block)
    return block


def _start_dl(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    _node_or_flatten(tb, tag, "definition_list", CONTAINER)


def _start_dt(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    _start_in(tb, tag, "definition_list", "definition_term", FLAT)


def _start_dd(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    block = _start_in(tb, tag, "definition_list", "definition", CONTAINER)
    if block is not None:
        block.head = ": "
        block.prefix = "  "


def _start_table(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    tb.end_layout_table()
    _node_or_flatten(tb, tag, "table", CONTAINER)


def _end_implicit_row(tb: TreeBuilder) -> None:
    owner = tb.owner
    if (
        owner is not None
        and owner.implicit
        and owner.table is not None
        and owner.table.dom == tb.last("table")
    ):
        tb.close_block(owner, tb.pos)


def _start_table_section(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    _end_implicit_row(tb)
    tb.boundary()
    container = tb.container()
    if tb.owner is None and container.kind == "table":
        header = tag == "thead"
        container.in_head += header
        tb.push(tag, HeadFrame(container, header))
    else:
        tb.push(tag, BOUNDARY)


def _start_row(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    _end_implicit_row(tb)
    block = _start_in(tb, tag, "table", "table_row", FLAT)
    if block is not None:
        block.table = block.parent
        block.in_head = block.table.in_head if block.table is not None else 0


def _start_cell(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    table_index = tb.last("table")
    owner = tb.owner
    if owner is None:
        container = tb.container()
        if container.kind == "table" and container.dom == table_index:
            owner = tb.implicit_owner()  # a cell outside any <tr>: an implicit row
    row_table = owner.table if owner is not None else None
    if owner is None or row_table is None or row_table.dom != table_index:
        tb.boundary()  # a cell of a table flattened into a cell: just a space
        tb.push(tag, BOUNDARY)
        return
    add_generated(owner, " | " if owner.cells else "| ")
    owner.cells += 1
    if tag == "th":
        owner.header_cells += 1
    if owner.aligns is None:
        owner.aligns = []
    owner.aligns.append(_align(attrs))
    tb.push(tag, CELL)


def _start_caption(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    if tag == "caption":
        _end_implicit_row(tb)
        _start_in(tb, tag, "table", "caption", FLAT)
    else:
        _node_or_flatten(tb, tag, "caption", FLAT)


def _start_quote(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    _node_or_flatten(tb, tag, "blockquote", CONTAINER)


# Elements whose text labels a control or lists its choices ("Copy item path", "Run",
# a version picker's options), never content.
_UI_CONTROLS = frozenset({"button", "select", "datalist"})


def _start_suppressed(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    # The reason is the element (script, style, template, noscript), except for controls.
    tb.suppress(tag, "ui_control" if tag in _UI_CONTROLS else tag)


def _start_title(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    first = not tb.title_done
    tb.title_done = True  # only the first <title> is the document's (and searched once)
    # Even inside text: HTML reads a <title> in the body as the title too, and text before
    # <html> opens the body (man2html's CGI output starts "Content-type: text/html").
    end = _TITLE_END.search(tb.content, tb.pos) if first and not tb.open.get("svg") else None
    if end is not None and tb.title_heads:
        # A page without a single heading element (sqlite.org's hand-written pages set
        # their title in a styled div), or a man page's (Page.title_heads): its title
        # heads it, so that its chunks have a heading path. Still the document's title.
        tb.title_parts.append(tb.content[tb.tag_end : end.start()])
        _start_heading(tb, tag, attrs)  # level 1, closed by </title>
        return
    if end is not None:
        tb.data_mode = TITLE_TEXT
        tb.push(tag, TITLE)
        return
    tb.push(tag, None)


def _start_link(tb: TreeBuilder, tag: str, attrs: Attrs) -> None:
    href = attribute(attrs, "href") if attrs else None
    if href is None:
        tb.push(tag, None)
        return
    owner = tb.owner
    # Navigation relations matter only where a navigation line may be chrome (see
    # TreeBuilder.navigation_line): on a page that marks no main content.
    nav = tb.boilerplate and not tb.has_main and is_navigation_link(attrs)
    tb.push(tag, LinkFrame(href, owner, owner.dlen if owner is not None else 0, nav))


def void_element(tb: TreeBuilder, tag: str) -> None:
    """Elements without content: ``br`` breaks the line, ``img`` shows its alt text,
    ``hr`` ends the paragraph (the others show nothing, so their attributes go unread)."""
    if tag == "br":
        if tb.owner is not None:
            request_break(tb.owner)
    elif tag == "img":
        _image(tb, tb.attributes())
    elif tag == "hr":
        tb.close_p()
        tb.boundary()


def _image(tb: TreeBuilder, attrs: Attrs) -> None:
    """An image shows its alt text inline; the attribute value is the unit."""
    alt = attribute(attrs, "alt")
    if not alt or not alt.strip():
        return
    tag_text = tb.content[tb.pos : tb.tag_end]
    span = alt_value_span(tag_text)
    if span is None:
        return
    if tb.outside_main_is_chrome and tb.chrome_text(tb.owner):
        tb.exclude_chrome(tb.pos, tb.pos + len(tag_text), "boilerplate")  # the whole <img>
        return
    start, end = tb.pos + span[0], tb.pos + span[1]
    owner = tb.owner if tb.owner is not None else tb.implicit_owner()
    tb.claim(start, end, owner)
    add_references(owner, tb.content[start:end], start, tb.diagnose)
    images = owner.attrs.setdefault("images", [])
    images.append((alt.strip(), attribute(attrs, "src") or ""))


Handler = Callable[["TreeBuilder", str, "Attrs"], None]

START: dict[int, Handler] = {
    Category.BOUNDARY: _start_boundary,
    Category.CHROME: _start_boundary,
    Category.MAIN: _start_main,
    Category.PARA: _start_paragraph,
    Category.HEADING: _start_heading,
    Category.PRE: _start_pre,
    Category.CODE: _start_code,
    Category.LIST: _start_list,
    Category.ITEM: _start_item,
    Category.DL: _start_dl,
    Category.DT: _start_dt,
    Category.DD: _start_dd,
    Category.TABLE: _start_table,
    Category.TSECT: _start_table_section,
    Category.ROW: _start_row,
    Category.CELL: _start_cell,
    Category.CAPTION: _start_caption,
    Category.QUOTE: _start_quote,
    Category.SUPPRESS: _start_suppressed,
    Category.TITLE: _start_title,
    Category.LINK: _start_link,
}
