"""Hand-built normalized trees and structural pieces, independent of any engine.

``heading_tree`` follows the built-in adapters' conventions on a tiny line format
(a ``#`` line is a heading that opens a section; other nonblank lines group into
paragraphs; whitespace between blocks is excluded), so the validator and the section
index can be tested before, and apart from, the real normalizers and the packer.
``piece`` assembles one chunk from source ranges the test chooses by hand; lineage
(sections, heading ids, displayed headings) is always given explicitly by the test.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastrag.models import Document
from fastrag.normalization import (
    CoverageUnit,
    Exclusion,
    NormalizedDocument,
    NormalizedNode,
    SourceSpan,
)
from fastrag.packing.contract import STRUCTURE_VERSION, build_embedding_text
from fastrag.tokenization import Utf8ByteTokenizer

TOKENIZER = Utf8ByteTokenizer()
SEPARATOR = "\n\n"

ORCHARD = "# Orchard\n## Water\nWater pears weekly.\n## Soil\nTest soil each spring.\n"


def _blocks(text: str) -> list[tuple[str, int, int, int]]:
    """(kind, start, end, level) of each heading line and paragraph, in order."""
    blocks: list[tuple[str, int, int, int]] = []
    offset = 0
    paragraph: tuple[int, int] | None = None
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        start, end = offset, offset + len(body)
        offset += len(line)
        stripped = body.strip()
        if not stripped or stripped.startswith("#"):
            if paragraph is not None:
                blocks.append(("paragraph", *paragraph, 0))
                paragraph = None
            if stripped:
                level = len(stripped) - len(stripped.lstrip("#"))
                blocks.append(("heading", start, end, level))
            continue
        paragraph = (start, end) if paragraph is None else (paragraph[0], end)
    if paragraph is not None:
        blocks.append(("paragraph", *paragraph, 0))
    return blocks


def heading_tree(
    text: str, document_id: str = "doc", format_name: str = "markdown"
) -> NormalizedDocument:
    """A validated tree: root → nested sections (heading first) → paragraphs."""
    root = f"{document_id}:root"
    kinds: dict[str, str] = {root: "document"}
    parents: dict[str, str | None] = {root: None}
    children: dict[str, list[str]] = {root: []}
    spans: dict[str, list[int]] = {root: [0, len(text)]}
    texts: dict[str, str] = {root: ""}
    levels: dict[str, int | None] = {root: None}
    order = [root]
    open_sections: list[tuple[int, str]] = []
    units: list[CoverageUnit] = []

    def add(node_id: str, kind: str, parent: str, start: int, end: int, level: int | None) -> None:
        kinds[node_id], parents[node_id], levels[node_id] = kind, parent, level
        children[node_id] = []
        children[parent].append(node_id)
        spans[node_id] = [start, end]
        order.append(node_id)

    for number, (kind, start, end, level) in enumerate(_blocks(text)):
        if kind == "heading":
            while open_sections and open_sections[-1][0] >= level:
                open_sections.pop()
            parent = open_sections[-1][1] if open_sections else root
            section = f"{document_id}:section:{number}"
            add(section, "section", parent, start, end, level)
            texts[section] = text[start:end].lstrip("#").strip()
            open_sections.append((level, section))
            node_id = f"{document_id}:heading:{number}"
            add(node_id, "heading", section, start, end, level)
            texts[node_id] = texts[section]
        else:
            parent = open_sections[-1][1] if open_sections else root
            node_id = f"{document_id}:paragraph:{number}"
            add(node_id, "paragraph", parent, start, end, None)
            texts[node_id] = text[start:end]
        for _, section in open_sections:
            spans[section][1] = end
        units.append(CoverageUnit(f"{node_id}:unit", node_id, SourceSpan(start, end)))
    exclusions: list[Exclusion] = []
    position = 0
    for unit in units:
        if unit.span.start > position:
            exclusions.append(Exclusion(SourceSpan(position, unit.span.start), "whitespace"))
        position = unit.span.end
    if position < len(text):
        exclusions.append(Exclusion(SourceSpan(position, len(text)), "whitespace"))
    nodes = tuple(
        NormalizedNode(
            node_id,
            kinds[node_id],
            texts[node_id],
            (SourceSpan(*spans[node_id]),),
            parents[node_id],
            tuple(children[node_id]),
            levels[node_id],
        )
        for node_id in order
    )
    parent_document = Document(document_id, "hand", text, {"content_format": format_name})
    return NormalizedDocument(
        parent_document, format_name, nodes, tuple(units), tuple(exclusions)
    ).validate()


def unit_span(normalized: NormalizedDocument, node_id: str) -> tuple[int, int]:
    """The source range of the one unit ``node_id`` owns."""
    (span,) = [u.span for u in normalized.units if u.node_id == node_id]
    return span.start, span.end


def node_ids(normalized: NormalizedDocument, kind: str) -> list[str]:
    return [node.node_id for node in normalized.nodes if node.kind == kind]


def piece(
    normalized: NormalizedDocument,
    ranges: Sequence[tuple[int, int]],
    *,
    section_ids: Sequence[str],
    heading_ids: Sequence[str],
    displayed: Sequence[str] = (),
    overlap: tuple[int, int] | None = None,
    chunk_kind: str = "section",
    embed_heading_path: bool = True,
    overflow: bool = False,
) -> tuple[str, dict[str, Any]]:
    """One chunk showing ``ranges`` of the source verbatim, joined by blank lines.

    ``overlap`` is a source range shown first, verbatim, followed by a blank line.
    """
    source = normalized.content
    parts: list[str] = []
    runs: list[tuple[int, int, int, int, str]] = []
    position = 0

    def show(text: str, start: int, end: int, kind: str) -> None:
        nonlocal position
        if parts:
            parts.append(SEPARATOR)
            runs.append((position, position + len(SEPARATOR), -1, -1, "separator"))
            position += len(SEPARATOR)
        parts.append(text)
        runs.append((position, position + len(text), start, end, kind))
        position += len(text)

    if overlap is not None:
        show(source[overlap[0] : overlap[1]], *overlap, "overlap")
    for start, end in ranges:
        show(source[start:end], start, end, "source")
    content = "".join(parts)
    owners = []
    for start, end in ranges:
        for unit in normalized.units:
            if unit.span.start < end and start < unit.span.end and unit.node_id not in owners:
                owners.append(unit.node_id)
    metadata: dict[str, Any] = {
        "structure_version": STRUCTURE_VERSION,
        "document_id": normalized.document.id,
        "section_ids": tuple(section_ids),
        "heading_ids": tuple(heading_ids),
        "heading_path": tuple(normalized.node(h).text for h in heading_ids),
        "displayed_heading_ids": tuple(displayed),
        "embed_heading_path": embed_heading_path,
        "char_start": ranges[0][0],
        "char_end": ranges[-1][1],
        "retained_intervals": tuple(ranges),
        "serialization_map": tuple(runs),
        "repeated_context": (),
        "overlap_intervals": (overlap,) if overlap is not None else (),
        "embedding_token_count": 0,
        "overflow": overflow,
        "atomic_structure_loss": False,
        "chunk_kind": chunk_kind,
        "structure_metadata": {
            "node_ids": tuple(owners),
            "kinds": tuple(normalized.node(n).kind for n in owners),
        },
        "engine_identity": "hand-built:v1",
    }
    return content, recount(content, metadata)


def recount(content: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """``metadata`` with ``embedding_token_count`` set from its complete embedding text."""
    metadata["embedding_token_count"] = TOKENIZER.count(build_embedding_text(content, metadata))
    return metadata


def orchard_pieces(normalized: NormalizedDocument) -> list[tuple[str, dict[str, Any]]]:
    """The two section chunks of ``ORCHARD``, built by hand."""
    s_orchard, s_water, s_soil = node_ids(normalized, "section")
    h_orchard, h_water, h_soil = node_ids(normalized, "heading")
    p_water, p_soil = node_ids(normalized, "paragraph")
    first = piece(
        normalized,
        [
            unit_span(normalized, h_orchard),
            unit_span(normalized, h_water),
            unit_span(normalized, p_water),
        ],
        section_ids=[s_orchard, s_water],
        heading_ids=[h_orchard],
        displayed=[h_orchard, h_water],
        chunk_kind="merged",
    )
    second = piece(
        normalized,
        [unit_span(normalized, h_soil), unit_span(normalized, p_soil)],
        section_ids=[s_soil],
        heading_ids=[h_orchard, h_soil],
        displayed=[h_soil],
    )
    return [first, second]
