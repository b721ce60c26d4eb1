"""The Markdown renderer of the PDF layout model: escapes, block rules and page maps.

Layouts are built by hand from the model's own values, then rendered and read back with
the Markdown normalizer the chunker uses: PDF text must never turn into Markdown syntax.
"""

from __future__ import annotations

import pytest

from fastrag.ingestion.pages import page_of
from fastrag.ingestion.steps.parsing._pdf_layout import (
    Block,
    BlockKind,
    Box,
    DocumentLayout,
    Line,
    PageLayout,
)
from fastrag.ingestion.steps.parsing._pdf_render import (
    escape_inline,
    escape_start,
    render_markdown,
)
from fastrag.models import Document
from fastrag.normalization import NormalizerRegistry


def line(text: str, y: float = 10.0, *, hyphenated: bool = False, x: float = 10.0) -> Line:
    box = Box(x, y, x + 5.0 * len(text), y + 10.0)
    return Line(text, box, 10.0, False, False, hyphenated, (text,), (box,), y + 8.0)


def block(kind: BlockKind, page: int, *lines: Line, **fields: object) -> Block:
    return Block(kind, page, lines, **fields)  # type: ignore[arg-type]


def layout(*pages: tuple[Block, ...]) -> DocumentLayout:
    return DocumentLayout(
        tuple(
            PageLayout(number, 600.0, 800.0, blocks, image_only=False)
            for number, blocks in enumerate(pages, start=1)
        ),
        "layout",
        0,
    )


def kinds(content: str) -> list[tuple[str, str]]:
    document = Document("x", "x.pdf", content, {"content_format": "markdown"})
    tree = NormalizerRegistry().normalize(document)
    return [(node.kind, node.text) for node in tree.nodes[1:]]


@pytest.mark.parametrize(
    "text",
    [
        "# not a heading",
        "###### nor this",
        "1. not a list",
        "12) not a list either",
        "- not a bullet",
        "+ nor this",
        "* nor this",
        "> not a quote",
        "---",
        "* * *",
        "___",
        "~~~ not a fence",
        "```not code```",
        "[label]: /not-a-definition",
        "[^1]: not a footnote",
        "<div>not html</div>",
        "<!-- not a comment",
        "```python not a fence",
        "<script>not a script",
    ],
)
def test_paragraph_text_never_becomes_markdown_structure(text: str) -> None:
    rendered = render_markdown(layout((block(BlockKind.PARAGRAPH, 1, line(text)),)))
    assert escape_start(text) != text
    assert kinds(rendered.content) == [("paragraph", escape_start(text))]


def test_paragraph_list_and_table_text_stays_literal() -> None:
    """Only block starts and table pipes are escaped: inline syntax in a one-line
    paragraph cannot change the blocks, and an escape would change the chunk text."""
    literal = "The __NOGLOBS__ flag, struct ctx *dst, `x`, C:\\dir, ‘\\\\\\.’ & <b> [a](b) 2 * 3"
    pages = (
        (
            block(BlockKind.PARAGRAPH, 1, line(literal)),
            block(BlockKind.LIST_ITEM, 1, line("• " + literal), marker="•"),
            block(BlockKind.LIST_ITEM, 1, line("• [x] not a task"), marker="•"),
            block(BlockKind.TABLE, 1, line("a b"), line("*c* d"), line("e f"),
                  rows=(("a_1_", "b"), ("*c*", "d|x"), ("e", "f"))),
        ),
    )  # fmt: skip
    content = render_markdown(layout(*pages)).content
    assert content == (
        f"{literal}\n\n- {literal}\n\n- \\[x] not a task\n\n"
        "| a_1_ | b |\n| --- | --- |\n| *c* | d\\|x |\n| e | f |\n"
    )
    assert [(kind, text) for kind, text in kinds(content) if text or kind == "table"] == [
        ("paragraph", literal),
        ("paragraph", literal),
        ("paragraph", "\\[x] not a task"),
        ("table", ""),
        ("table_row", "| a_1_ | b |\n| --- | --- |"),
        ("table_row", "| *c* | d\\|x |"),
        ("table_row", "| e | f |"),
    ]


def test_inline_escapes_are_minimal() -> None:
    assert escape_inline("snake_case and a*b, `tick`, C:\\dir, a\\*b") == (
        "snake_case and a\\*b, \\`tick\\`, C:\\dir, a\\\\\\*b"
    )
    assert escape_inline("_emphasis_ <b>x</b> &amp; [t](u)") == (
        "\\_emphasis\\_ \\<b>x\\</b> \\&amp; [t\\](u)"
    )
    assert escape_inline("3 < 4 & 5 > 2, café | bar") == "3 < 4 & 5 > 2, café | bar"
    assert escape_start("2024. A year") == "2024\\. A year"
    assert escape_start("Plain") == "Plain"


def test_blocks_render_and_read_back() -> None:
    pages = (
        (
            block(BlockKind.HEADING, 1, line("Intro #"), level=2),
            block(BlockKind.LIST_ITEM, 1, line("• first point"), marker="•"),
            block(BlockKind.LIST_ITEM, 1, line("3. third point"), marker="3."),
            block(BlockKind.LIST_ITEM, 1, line("(a) labelled - point"), marker="(a)"),
            block(BlockKind.CODE, 1, line("if x:"), line("print(x)", y=22.0, x=30.0)),
            block(
                BlockKind.PARAGRAPH,
                1,
                line("A word split by a hyph", hyphenated=True),
                line("enation and a dash 737–", y=22.0),
                line("9 here, and", y=34.0),
            ),
        ),
        (
            block(BlockKind.PARAGRAPH, 2, line("continued on the next page."), continues=True),
            block(BlockKind.TABLE, 2, line("a b"), line("c|d e"), rows=(("a", "b"), ("c|d", "e"))),
        ),
    )
    rendered = render_markdown(layout(*pages))
    content = rendered.content
    assert content == (
        "## Intro \\#\n\n"
        "- first point\n\n3. third point\n\n- (a) labelled - point\n\n"
        "```\nif x:\n    print(x)\n```\n\n"
        "A word split by a hyphenation and a dash 737–9 here, and continued on the next page.\n\n"
        "| a | b |\n| --- | --- |\n| c\\|d | e |\n"
    )
    assert [kind for kind, _text in kinds(content)] == [
        "section", "heading", "list", "list_item", "list", "list_item", "list", "list_item",
        "code", "paragraph", "table", "table_row", "table_row",
    ]  # fmt: skip
    # Page 1 ends with its last row; the joining space is markup between the pages and
    # belongs to page 2, like everything after it.
    page_break = content.index("9 here, and") + len("9 here, and")
    assert rendered.pages == [[0, page_break, 1], [page_break, len(content), 2]]
    assert page_of(rendered.pages, page_break) == 2
    rows = [content[start:end] for start, end, *_rest in rendered.layout]
    assert rows == [
        "Intro \\#",
        "first point",
        "third point",
        "labelled - point",
        "if x:",
        "print(x)",
        "A word split by a hyph",
        "enation and a dash 737–",
        "9 here, and",
        "continued on the next page.",
        "| a | b |",
        "| c\\|d | e |",
    ]
    assert [entry[2] for entry in rendered.layout] == [1] * 9 + [2] * 3
    assert all(isinstance(value, float) for entry in rendered.layout for value in entry[3:])


def test_numeric_first_table_row_gets_an_empty_header() -> None:
    table = block(BlockKind.TABLE, 1, line("x 1"), line("y 2"), rows=(("x", "1"), ("y", "2")))
    content = render_markdown(layout((table,))).content
    assert content == "| | |\n| --- | --- |\n| x | 1 |\n| y | 2 |\n"
    assert [kind for kind, _text in kinds(content)] == [
        "table",
        "table_row",
        "table_row",
        "table_row",
    ]


def test_empty_layout_renders_nothing() -> None:
    rendered = render_markdown(layout((), ()))
    assert (rendered.content, rendered.pages, rendered.layout) == ("", [], [])
