"""An HTML table cut into pieces gives whole Markdown rows in every piece.

An HTML table's display draws its cell borders (``| ``, `` | ``, `` |``) and its
delimiter row (``|---|``) itself; only the cell texts are source. Cutting between rows
at the end of the last cell used to end one piece without the row's closing border and
open the next with it (``" |\\n| next row"``), and the repeated header stopped after its
last cell, without the delimiter row: Rust's operator table read ``| Operator | … |
Overloadable?\\n |`` at the top of every piece.
"""

from __future__ import annotations

import re

from fastrag.models import Document
from fastrag.normalization.formats.html import HtmlNormalizer
from fastrag.normalization.formats.markdown import MarkdownNormalizer
from fastrag.packing import PackingConfig, pack
from tests.unit.packing._engine_support import check_pieces, tokenizer_named

ROW = re.compile(r"\| .* \|")
CONFIG = PackingConfig(max_tokens=60, target_tokens=50, min_preferred_tokens=10)


def _table(rows: int, *, newlines: bool) -> str:
    body = "".join(
        f"<tr><td>op{n}</td><td>example {n} text here</td><td>Trait{n}</td></tr>"
        for n in range(rows)
    )
    html = (
        "<html><body><h1>Operators</h1><table><thead><tr><th>Operator</th>"
        f"<th>Example</th><th>Overloadable?</th></tr></thead><tbody>{body}</tbody>"
        "</table></body></html>"
    )
    return html.replace("<tr>", "\n<tr>") if newlines else html


def _pieces(source: str, normalizer: object = None) -> list[str]:
    document = Document("d", "d.html", source, {})
    normalized = (normalizer or HtmlNormalizer()).normalize(document)  # type: ignore[attr-defined]
    tokenizer = tokenizer_named("cl100k")
    pieces = pack(normalized, tokenizer, CONFIG)
    check_pieces(normalized, pieces, tokenizer, CONFIG)
    return [content for content, _ in pieces]


def test_every_piece_of_a_split_html_table_is_whole_rows_under_the_whole_header() -> None:
    for newlines in (False, True):
        pieces = _pieces(_table(12, newlines=newlines))
        table_pieces = [piece for piece in pieces if "op" in piece]
        assert len(table_pieces) >= 3
        for piece in table_pieces:
            lines = piece[piece.index("| Operator") :].split("\n")
            assert lines[:2] == ["| Operator | Example | Overloadable? |", "|---|---|---|"]
            assert len(lines) > 2
            assert all(ROW.fullmatch(line) for line in lines[2:]), lines
        body = [line for piece in table_pieces for line in piece.split("\n")[2:]]
        assert [line for line in body if line.startswith("| op")] == [
            f"| op{n} | example {n} text here | Trait{n} |" for n in range(12)
        ]


def test_a_markdown_table_is_cut_where_it_was() -> None:
    rows = "".join(f"| op{n} | example {n} text here | Trait{n} |\n" for n in range(12))
    source = f"# Operators\n\n| Operator | Example | Overloadable? |\n|---|---|---|\n{rows}"
    pieces = _pieces(source, MarkdownNormalizer())
    for piece in pieces[1:]:
        assert piece.startswith("| Operator | Example | Overloadable? |\n|---|---|---|\n| op")
        assert piece.endswith(" |")


def test_a_table_without_header_read_inside_markdown_is_cut_between_whole_rows() -> None:
    """An HTML block's display is one leaf: the border between two rows is one run the
    display adds (``" |\\n| "``), which a cut between rows used to leave whole to the
    next piece, ending a piece without its closing border and opening the next with it."""
    body = "".join(
        f"<tr><td>person {n}</td><td>author of chapter {n}</td><td>{n} commits</td></tr>"
        for n in range(12)
    )
    table = f"<table>\n<tbody>{body}</tbody>\n</table>\n"
    for source, normalizer in (
        (f"# Team\n\n{table}", MarkdownNormalizer()),
        (f"<html><body><h1>Team</h1>{table}</body></html>", HtmlNormalizer()),
    ):
        pieces = [piece for piece in _pieces(source, normalizer) if "person" in piece]
        assert len(pieces) >= 3
        rows = [line for piece in pieces for line in piece.split("\n") if "person" in line]
        assert rows == [f"| person {n} | author of chapter {n} | {n} commits |" for n in range(12)]
        for piece in pieces:
            assert piece.endswith(" |") and not piece.startswith(" |"), piece
