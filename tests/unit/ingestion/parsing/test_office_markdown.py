"""The office parsers' pure helpers: Markdown rendering and the worksheet block finder."""

from __future__ import annotations

import pytest

from fastrag.ingestion.steps.parsing._office_markdown import (
    ListItem,
    code_block,
    heading,
    list_block,
    paragraph,
    pipe_table,
)
from fastrag.ingestion.steps.parsing._office_xlsx_blocks import (
    Block,
    DefinedTable,
    Sheet,
    sheet_blocks,
)
from fastrag.models import Document
from fastrag.normalization import NormalizerRegistry


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# not a heading", "\\# not a heading"),
        ("#hashtag", "#hashtag"),
        ("> not a quote", "\\> not a quote"),
        ("- not an item", "\\- not an item"),
        ("-5 degrees", "-5 degrees"),
        ("1. not an item", "1\\. not an item"),
        ("2019) not an item", "2019\\) not an item"),
        ("---", "\\---"),
        ("* * *", "\\* * *"),
        ("===", "\\==="),
        ("```python", "\\```python"),
        ("<div>", "\\<div>"),
        ("[1]: not a definition", "\\[1]: not a definition"),
        ("    not code", "not code"),
        ("one\n  two", "one\ntwo"),
        ("a | b\n---|---", "a \\| b\n---\\|---"),
        ("single | line", "single | line"),
        ("soft\x1fhyphen\x00", "softhyphen"),
        ("  \n \t ", ""),
    ],
)
def test_paragraph_text_never_becomes_structure(text: str, expected: str) -> None:
    assert paragraph(text) == expected


def test_escaped_paragraphs_normalize_to_paragraphs_only() -> None:
    lines = ["# a", "> b", "- c", "1. d", "---", "```", "<div>", "[x]: y", "    e"]
    content = "\n\n".join(paragraph(line) for line in lines) + "\n"
    tree = NormalizerRegistry().normalize(
        Document("d", "d", content, {"content_format": "markdown"})
    )
    kinds = {node.kind for node in tree.nodes} - {"document"}
    assert kinds == {"paragraph"}


def test_heading_is_one_line_and_keeps_a_trailing_hash() -> None:
    assert heading(2, "Issue  #\nnumber #") == "## Issue # number \\#"
    assert heading(9, "deep") == "###### deep"
    assert heading(1, " \n ") == ""


def test_list_levels_nest_under_their_parent_and_never_jump() -> None:
    items = [
        ListItem(0, False, "a"),
        ListItem(3, False, "jumped to 1"),
        ListItem(1, True, "numbered"),
        ListItem(1, True, "next"),
        ListItem(0, True, "top"),
        ListItem(0, True, "two\nlines"),
        ListItem(0, False, "- dash"),
    ]
    assert list_block(items) == (
        "- a\n  - jumped to 1\n  1. numbered\n  2. next\n1. top\n2. two\n   lines\n- \\- dash"
    )


def test_pipe_table_pads_rows_and_escapes_cells() -> None:
    assert pipe_table([["a", "b|c"], ["1"], ["x\ny", "z", "w"]]) == (
        "| a | b\\|c |  |\n|---|---|---|\n| 1 |  |  |\n| x y | z | w |"
    )
    assert pipe_table([]) == ""


def test_code_block_fence_outlasts_backticks_inside() -> None:
    assert code_block(["", "x = ```", "   y", ""]) == "````\nx = ```\n   y\n````"
    assert code_block(["", " "]) == ""


def cells(rows: dict[tuple[int, int], str], numeric: bool = False) -> Sheet:
    numbers = frozenset(cell for cell, text in rows.items() if text.isdigit()) if numeric else None
    return Sheet(rows, numbers or frozenset())


def test_blocks_table_title_and_notes_in_reading_order() -> None:
    values = {
        (1, 1): "Note above",
        (3, 2): "Title",
        (4, 2): "h1",
        (4, 3): "h2",
        (5, 2): "1",
        (5, 3): "2",
        (9, 5): "stray",
    }
    assert sheet_blocks(cells(values, numeric=True)) == [
        Block("text", (1, 1, 1, 1), (("Note above",),)),
        Block("title", (3, 2, 3, 3), (("Title",),)),
        Block("table", (4, 2, 5, 3), (("h1", "h2"), ("1", "2"))),
        Block("text", (9, 5, 9, 5), (("stray",),)),
    ]


def test_an_empty_corner_header_is_not_a_title() -> None:
    values = {(1, 2): "Value", (2, 1): "a", (2, 2): "1", (3, 1): "b", (3, 2): "2"}
    (block,) = sheet_blocks(cells(values, numeric=True))
    assert block.kind == "table"
    assert block.rows[0] == ("", "Value")


def test_a_table_starting_under_another_is_split_off() -> None:
    values = {(1, 1): "a", (1, 2): "b", (2, 1): "1", (2, 2): "2"}
    values |= {(3, 2): "c", (3, 3): "d", (4, 2): "3", (4, 3): "4"}
    blocks = sheet_blocks(cells(values, numeric=True))
    assert [block.rows for block in blocks] == [
        (("a", "b"), ("1", "2")),
        (("c", "d"), ("3", "4")),
    ]


def test_merged_cells_repeat_in_tables_and_defined_tables_win() -> None:
    sheet = Sheet(
        {(1, 1): "wide", (2, 1): "x", (2, 2): "y", (5, 1): "n", (6, 1): "v"},
        merges=((1, 1, 1, 2),),
        tables=(DefinedTable((5, 1, 6, 1)), DefinedTable((8, 1, 8, 2), 0, ("c1", "c2"))),
    )
    assert [(block.kind, block.rows) for block in sheet_blocks(sheet)] == [
        ("table", (("wide", "wide"), ("x", "y"))),
        ("table", (("n",), ("v",))),
        ("table", (("c1", "c2"), ("", ""))),
    ]
