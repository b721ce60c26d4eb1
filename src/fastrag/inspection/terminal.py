"""The terminal form of an inspection: the summary and one row per chunk, with ``rich``.

Document-derived strings (section paths, the file name) are printed as ``rich.text.Text``
— never parsed as console markup, so a heading such as ``[bold red]`` stays literal — and
with control characters replaced, so a document cannot move the cursor or change the
terminal's colours through an escape sequence in a heading.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Final

from fastrag._optional import require
from fastrag.inspection.load import Inspection
from fastrag.inspection.summary import summarize

__all__ = ["printable", "render_table"]

_SECTION_WIDTH: Final = 60


def printable(value: object, limit: int | None = None) -> str:
    """``value`` with control and format characters shown as U+FFFD, cut to ``limit``."""
    text = "".join(
        "\ufffd" if unicodedata.category(char) in ("Cc", "Cf") else char for char in str(value)
    )
    if limit is not None and len(text) > limit:
        return text[: limit - 1] + "…"
    return text


def render_table(inspection: Inspection, console: Any) -> None:
    """Print the summary table and the chunk table of ``inspection`` on ``console``."""
    table_module = require("rich.table", extra="cli", feature="fastrag inspect's tables")
    text_module = require("rich.text", extra="cli", feature="fastrag inspect's tables")
    text = text_module.Text
    summary = table_module.Table(title=text(printable(f"fastrag inspect {inspection.source}")))
    summary.add_column("")
    summary.add_column("")
    summary.show_header = False
    for label, value in summarize(inspection).rows():
        summary.add_row(text(label), text(printable(value)))
    console.print(summary)
    chunks = table_module.Table(title="chunks")
    for name, justify in (
        ("#", "right"),
        ("section", "left"),
        ("page", "right"),
        ("chars", "right"),
        ("tokens", "right"),
        ("kind", "left"),
        ("flags", "left"),
    ):
        chunks.add_column(name, justify=justify)
    budget = inspection.settings.max_tokens
    for position, record in enumerate(inspection.records):
        metadata = record["metadata"]
        start, end = record["char_start"], record["char_end"]
        flags = [name for name in ("overflow", "atomic_structure_loss") if metadata.get(name)]
        tokens = str(record["token_estimate"]) + ("" if budget is None else f"/{budget}")
        chunks.add_row(
            str(position),
            text(printable(record["section"] or "-", _SECTION_WIDTH)),
            "-" if record["page"] is None else str(record["page"]),
            "not located" if start is None else f"{start}-{end}",
            tokens,
            text(printable(metadata.get("chunk_kind", "-"))),
            text(", ".join(flags) or "-"),
        )
    console.print(chunks)
