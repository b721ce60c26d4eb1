"""A table nested in another block of an HTML page (a definition, say) stays one table in
the readable chunk text: its rows are joined by single line breaks, since a blank line
between rows would end a Markdown table (seen in Python's ``json`` conversion table)."""

from __future__ import annotations

from fastrag.ingestion.steps.chunking.structure import StructureAwareChunker
from fastrag.models import Document

HTML = (
    "<html><body><main><h1>T</h1><dl><dt>Conversions</dt><dd><p>Table:</p>"
    "<table><thead><tr><th>JSON</th><th>Python</th></tr></thead><tbody>"
    "<tr><td>object</td><td>dict</td></tr><tr><td>array</td><td>list</td></tr>"
    "</tbody></table><p>After.</p></dd></dl></main></body></html>"
)


def _text(content: str, content_format: str) -> str:
    chunker = StructureAwareChunker(cache=False)
    document = Document("d", "d", content, {"content_format": content_format})
    return "".join(piece[0] for piece in chunker.split(document) if not isinstance(piece, str))


def test_rows_of_a_table_inside_an_html_definition_stay_one_table() -> None:
    assert "| JSON | Python |\n|---|---|\n| object | dict |\n| array | list |\n\n" in _text(
        HTML, "html"
    )
