"""What the HTML tree builder remembers about each open element (its "frame").

Most elements need nothing (``None``); block-level ones without a node share one marker;
the rest carry the little state their end tag needs.
"""

from __future__ import annotations

from fastrag.normalization.formats._html_text import Block

__all__ = [
    "BOUNDARY",
    "CELL",
    "DATA_TEXT",
    "FLATTENED",
    "MAIN",
    "TITLE",
    "TITLE_TEXT",
    "Frame",
    "HeadFrame",
    "HintFrame",
    "Limits",
    "LinkFrame",
    "Marker",
    "SuppressedFrame",
]


# What text arriving now is (the builder's data_mode; 0 while an element is excluded).
DATA_TEXT, TITLE_TEXT = 1, 2


class Limits:
    """Structural limits (validated by the normalizer's constructor)."""

    __slots__ = ("max_depth", "max_table_cells")

    def __init__(self, max_depth: int, max_table_cells: int) -> None:
        self.max_depth = max_depth
        self.max_table_cells = max_table_cells


class Marker:
    """A frame shared by every element of one behaviour (no per-element state)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


BOUNDARY = Marker("boundary")  # a block-level element without a node of its own
MAIN = Marker("main")  # main, article, role=main: nothing inside is boilerplate
CELL = Marker("cell")
TITLE = Marker("title")
FLATTENED = Marker("flattened")  # a block past max_depth: its text joins the deepest paragraph


class SuppressedFrame:
    """An element excluded whole (script, style, template, noscript, page chrome)."""

    __slots__ = ("reason", "start")

    def __init__(self, reason: str, start: int) -> None:
        self.reason = reason
        self.start = start


class LinkFrame:
    """An open ``<a href>``: where its text starts in the block that shows it."""

    __slots__ = ("href", "nav", "owner", "start")

    def __init__(self, href: str, owner: Block | None, start: int, nav: bool = False) -> None:
        self.href = href
        self.owner = owner
        self.start = start
        self.nav = nav  # rel=next/prev/up … or an accesskey: a page-navigation link


class HintFrame:
    """A block-level element naming the language of code inside it (Sphinx highlight-*)."""

    __slots__ = ("language",)

    def __init__(self, language: str) -> None:
        self.language = language


class HeadFrame:
    """An open ``<thead>``/``<tbody>``/``<tfoot>`` of a table (rows in a thead are headers)."""

    __slots__ = ("header", "table")

    def __init__(self, table: Block, header: bool) -> None:
        self.table = table
        self.header = header


Frame = Block | Marker | SuppressedFrame | LinkFrame | HintFrame | HeadFrame | None
