"""The HTML tree builder's open blocks: which draft node takes the text arriving now.

Blocks nest independently of elements: an element without a node (``div``, ``section``)
only marks a boundary; a leaf that cannot hold blocks (a heading, a table row, ``pre``)
flattens nested block elements into its text; headings open sections by level, whatever
the element nesting; past ``max_depth`` everything becomes lines of one paragraph.
"""

from __future__ import annotations

from fastrag.exceptions import NormalizationError
from fastrag.normalization.formats._html_elements import OpenElements
from fastrag.normalization.formats._html_frames import BOUNDARY, FLATTENED, Limits
from fastrag.normalization.formats._html_tags import names_page
from fastrag.normalization.formats._html_text import (
    CONTAINER,
    FLAT,
    PARA,
    PRE,
    Block,
    add_generated,
    request_break,
    trim_start,
    truncate,
)

__all__ = ["IN_PAGE_CONTENTS", "BlockTree", "finish", "plain_spaces"]

_ITEM_CONTAINERS = ("list_item", "definition")
_DELIMITER = {"left": ":---", "right": "---:", "center": ":---:", "none": "---"}


class BlockTree(OpenElements):
    """The open blocks (draft nodes) of one parse, above the open-element stack."""

    def __init__(self, limits: Limits) -> None:
        super().__init__()
        self.limits = limits
        self.root = Block("document", CONTAINER, None, 0, -1)
        self.blocks: list[Block] = []
        self.sections: list[Block] = []
        self.owner: Block | None = None  # the block that shows text arriving now
        self.depth_reported = False
        self.flattened = 0  # open elements flattened past max_depth
        self.nav_lines: set[str] = set()  # texts of the navigation lines excluded so far
        self.sectioned = False  # a heading has opened a section

    def navigation_line(self, block: Block) -> None:
        """A finished paragraph with links that may be a navigation line: all of them
        navigate between pages, or navigation lines were seen (the builder decides
        whether it is chrome; a bare tree keeps it)."""

    def contents_list(self, block: Block) -> None:
        """A finished top-level list that may be the page's table of contents (the
        builder decides; a bare tree keeps it)."""

    def page_title(self) -> str:
        """The page's ``<title>``, whitespace collapsed ("" for a bare tree)."""
        return ""

    def shows_nothing(self, block: Block) -> None:
        """A finished leaf whose text is only spaces (``<p>&nbsp;</p>``, a blank ``<pre>``):
        the builder excludes it (a bare tree keeps it)."""

    def container(self) -> Block:
        if self.blocks:
            return self.blocks[-1]
        return self.sections[-1] if self.sections else self.root

    def open_block(self, tag: str, kind: str, mode: int) -> Block | None:
        """A new child of the current container, or None past ``max_depth``.

        Containers stop one level short of the limit so a leaf always fits below them.
        Past the limit the caller pushes ``FLATTENED``: every element inside becomes lines
        of one implicit paragraph in the deepest container (never one node per level,
        never a wide run of siblings, never recursion).
        """
        parent = self.container()
        if (self.flattened and tag) or parent.depth + 1 > self.limits.max_depth - (
            1 if mode == CONTAINER else 0
        ):
            if not self.depth_reported:
                self.depth_reported = True
                self.diagnose(
                    f"offset {self.pos}: nesting deeper than max_depth="
                    f"{self.limits.max_depth}; deeper blocks flattened into their container"
                )
            return None
        block = Block(kind, mode, parent, self.pos, len(self.tags) if tag else -1)
        parent.children.append(block)
        if mode == PARA and parent.kind in ("list_item", "definition"):
            block.head = parent.head if parent.first else parent.prefix
            block.prefix = parent.prefix
            parent.first = False
        self.blocks.append(block)
        self.owner = block if mode != CONTAINER else None
        return block

    def implicit_owner(self) -> Block:
        """A block for text that arrives where no block shows text (a bare text run)."""
        container = self.container()
        if container.kind == "table":
            row = self.open_block("", "table_row", FLAT)
            if row is not None:
                row.table = container
                return row
        block = self.open_block("", "paragraph", PARA)
        assert block is not None  # only containers are refused at the depth limit
        return block

    def push_block(self, tag: str, block: Block | None) -> None:
        """Push the element of a block ``open_block`` made, or of one it refused."""
        if block is None:
            self.flattened += 1
            self.push(tag, FLATTENED)
        else:
            self.push(tag, block)

    def end_layout_table(self) -> None:
        """A heading or a table inside a cell means the table lays out the page: close it
        (with the rows so far) and read the rest of it like a ``div``."""
        owner = self.owner
        table = owner.table if owner is not None else None
        if owner is None or table is None or table.dom < 0 or table.dom != self.last("table"):
            return
        self.close_block(table, self.pos)
        frames = self.frames
        for block in (table, owner):  # their elements now end like a div's
            if 0 <= block.dom < len(frames) and frames[block.dom] is block:
                frames[block.dom] = BOUNDARY

    def boundary(self) -> None:
        """A block-level edge: ends an implicit paragraph, or separates flat text."""
        owner = self.owner
        if owner is None:
            return
        if owner.implicit and owner.mode == PARA:
            if self.flattened:
                request_break(owner)
            else:
                self.close_block(owner, self.pos)
        elif owner.mode != PRE and owner.tail and not owner.pend:
            owner.pend = 1
            owner.ps = -1

    def close_block(self, block: Block, end: int) -> None:
        blocks = self.blocks
        while blocks and blocks[-1] is not block:
            finish(self, blocks.pop(), end)
        if blocks:
            blocks.pop()
        finish(self, block, end)
        top = blocks[-1] if blocks else None
        self.owner = top if top is not None and top.mode != CONTAINER else None


IN_PAGE_CONTENTS = 3
"""Links to the page's own fragments, and nothing else, that make a line its table of
contents (groff's man pages list their sections so, one ``<a href="#NAME">`` per line)."""


def finish(tb: BlockTree, block: Block, end: int) -> None:
    """Complete ``block`` when its element (or its container) closes at ``end``."""
    block.end = end
    block.pend = 0
    kind = block.kind
    if kind == "table_row":
        _finish_row(tb, block)
        links = block.links
        if links is not None and block.nav == len(links):
            tb.navigation_line(block)  # a navigation bar laid out as a table row
    elif kind == "code":  # blank lines around code carry nothing; indentation does
        text = block.display()
        kept = len(text.rstrip("\r\n"))
        if kept < len(text):
            truncate(block, kept)
        lead = kept - len(text[:kept].lstrip("\r\n"))
        if lead:
            trim_start(block, lead)
    elif kind == "heading":
        if block.units and not block.display().strip():
            block.kind = "paragraph"  # no visible title (&nbsp; only): not a heading
            block.level = None
        elif "\xa0" in block.display():
            plain_spaces(block)
        if block.parent is None:
            _attach_section(tb, block)
    elif kind == "list" and block.list_depth <= 1 and len(block.children) >= IN_PAGE_CONTENTS:
        tb.contents_list(block)
    elif kind == "paragraph":
        links = block.links
        if links is not None and (
            block.nav == len(links) or tb.nav_lines or len(links) >= IN_PAGE_CONTENTS
        ):
            tb.navigation_line(block)
        elif not block.dlen and block.head:
            parent = block.parent
            if parent is not None and parent.kind in _ITEM_CONTAINERS and block.head == parent.head:
                parent.first = True  # an empty first paragraph leaves the label to the next
    if block.units and block.mode != CONTAINER and not block.display().strip():
        # Spacer paragraphs and blank code show nothing a reader or a search could use,
        # and a chunk of them alone would be whitespace, which chunkers drop.
        tb.shows_nothing(block)


def plain_spaces(heading: Block) -> None:
    """A title shows U+00A0 as a space, without spaces at its ends.

    Titles become section paths and heading paths, which are read and matched as words
    ("2.1.\xa0What Valgrind does", DocBook's numbering). Each no-break space is one display
    character either way (a raw one maps one to one, like a single whitespace character
    shown as a space; ``&nbsp;`` is a decoded run that maps its ends), so the map holds.
    """
    text = heading.display().replace("\xa0", " ")
    heading.parts = [text]
    kept = len(text.rstrip(" "))
    if kept < len(text):
        truncate(heading, kept)
    lead = len(text) - len(text.lstrip(" "))
    if lead:
        trim_start(heading, lead)


def _finish_row(tb: BlockTree, row: Block) -> None:
    if row.cells:
        add_generated(row, " |")
    header = bool(row.in_head) or (row.header_cells > 0 and row.header_cells == row.cells)
    row.attrs["header"] = header
    table = row.table
    if table is None:
        return
    aligns = tuple(row.aligns or ())
    if row.cells and "align" not in table.attrs:
        table.attrs["align"] = aligns
    if header and row.cells and table.counter == 0:
        add_generated(row, "\n|" + "|".join(_DELIMITER[align] for align in aligns) + "|")
    table.counter += 1
    table.cells += row.cells
    if table.cells > tb.limits.max_table_cells:
        raise NormalizationError(
            f"HTML table at offset {table.start} has more than max_table_cells="
            f"{tb.limits.max_table_cells} cells; raise HtmlNormalizer(max_table_cells=...) "
            "or split the document"
        )


def _attach_section(tb: BlockTree, heading: Block) -> None:
    """A top-level heading with text opens a section: it closes open sections of the same
    or a deeper level, whatever the element nesting (HTML headings do not nest)."""
    if not heading.units:
        return
    if heading.kind != "heading":
        parent = tb.sections[-1] if tb.sections else tb.root
        heading.parent = parent
        heading.depth = parent.depth + 1
        parent.children.append(heading)
        return
    level = heading.level or 1
    if not tb.sectioned:
        tb.sectioned = True
        if level > 1 and names_page(" ".join(heading.display().split()), tb.page_title()):
            # The first heading repeats the page's <title>: it titles the page, above
            # the headings of its own rank after it (DocBook's reference pages and
            # gtk-doc's set every heading in <h2>, the title too; so do many
            # hand-written pages). Level 1: a later <h1> still closes it.
            level = heading.level = 1
    sections = tb.sections
    while sections and (sections[-1].level or 0) >= level:
        sections.pop().closer = level
    parent = sections[-1] if sections else tb.root
    section = Block("section", CONTAINER, parent, heading.start, -1)
    section.level = level
    heading.parent = section
    heading.depth = section.depth + 1
    parent.children.append(section)
    section.children.append(heading)
    sections.append(section)
