"""The one definition of a document's sections, shared by ``SectionIndex`` and ``SectionStore``.

A *section* is a ``"section"`` node of a normalized tree: its heading path (the headings
of it and its enclosing sections), level, character range, enclosing section and
content — the exact source text of its spans, or, for HTML (whose source is markup),
the readable text of the blocks under it. Content before the first heading is the
``"preamble"`` (see ``section_index``). Resolving a hit — which sections, which
ancestors, in what order — is ``choose``; both the in-memory index and the persistent
store call it, so they cannot disagree.

``document_sections`` computes every section of one tree at once, in a compact form that
can leave the process: one ``text`` per document and, per section, ``pieces`` — ranges
of that text whose concatenation is the section's content. For Markdown, text, RST the
text is the parsed source itself and the pieces are the section's spans; for HTML it is
the document's readable text (every unit-owning block's text, in tree order, joined by
a blank line), in which a section's blocks are one contiguous run. Nested sections thus
share one copy of the text instead of repeating their subsections' content.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from fastrag.exceptions import ValidationError
from fastrag.normalization.model import NormalizedDocument, NormalizedNode, Units
from fastrag.packing.contract import path_title

__all__ = [
    "PREAMBLE",
    "SECTION",
    "DocumentSections",
    "SectionRow",
    "choose",
    "document_sections",
    "row_from_list",
    "row_to_list",
]

SECTION: Final = "section"
PREAMBLE: Final = "preamble"
_HEADING: Final = "heading"
_READABLE_FORMATS: Final = frozenset({"html"})
"""Formats whose node text is a readable serialization rather than the source slice."""
_BLOCK_JOIN: Final = "\n\n"
_FORMAT: Final = "fastrag-sections:v1"
"""The JSON form's version (``DocumentSections.to_json``)."""

Piece = tuple[int, int]


@dataclass(frozen=True, slots=True)
class SectionRow:
    """One section (or the preamble) of a document; its content is ``pieces`` of the
    document's ``DocumentSections.text``."""

    section_id: str
    parent_id: str | None
    """The nearest enclosing section (None for a top-level section and the preamble)."""
    heading_ids: tuple[str, ...]
    heading_path: tuple[str, ...]
    level: int | None
    char_start: int
    char_end: int
    pieces: tuple[Piece, ...]
    kind: str = SECTION


@dataclass(frozen=True, slots=True)
class DocumentSections:
    """Every section of one normalized document, and the text their pieces index."""

    document_id: str
    text: str
    rows: tuple[SectionRow, ...]
    """The preamble first when there is one, then the sections in tree order."""

    @property
    def preamble(self) -> SectionRow | None:
        first = self.rows[0] if self.rows else None
        return first if first is not None and first.kind == PREAMBLE else None

    def content(self, row: SectionRow) -> str:
        """The row's exact content."""
        return "".join(self.text[start:end] for start, end in row.pieces)

    def to_json(self) -> str:
        """A compact JSON form (workers send it to the parent process)."""
        rows = [row_to_list(row) for row in self.rows]
        value = {"format": _FORMAT, "document_id": self.document_id, "text": self.text}
        return json.dumps({**value, "rows": rows}, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> DocumentSections:
        """The inverse of ``to_json``; ``ValidationError`` for anything else."""
        try:
            value = json.loads(text)
            if value["format"] != _FORMAT:
                raise ValueError(f"format {value['format']!r}")
            rows = tuple(row_from_list(row) for row in value["rows"])
            return cls(str(value["document_id"]), str(value["text"]), rows)
        except (ValueError, KeyError, TypeError, IndexError) as error:
            raise ValidationError(
                f"not a {_FORMAT} section payload ({type(error).__name__}: {error}); the "
                "worker and the parent must run the same fastrag version"
            ) from None


def row_to_list(row: SectionRow) -> list[Any]:
    """The row as a JSON-native list (the section store's and the payload's form)."""
    return [
        row.section_id,
        row.parent_id,
        list(row.heading_ids),
        list(row.heading_path),
        row.level,
        row.char_start,
        row.char_end,
        [list(piece) for piece in row.pieces],
        row.kind,
    ]


def row_from_list(value: Sequence[Any]) -> SectionRow:
    """The inverse of ``row_to_list`` (``TypeError``/``ValueError`` when malformed)."""
    section_id, parent_id, heading_ids, heading_path, level, start, end, pieces, kind = value
    if kind not in (SECTION, PREAMBLE):
        raise ValueError(f"section kind {kind!r}")
    return SectionRow(
        str(section_id),
        None if parent_id is None else str(parent_id),
        tuple(str(item) for item in heading_ids),
        tuple(str(item) for item in heading_path),
        None if level is None else int(level),
        int(start),
        int(end),
        tuple((int(s), int(e)) for s, e in pieces),
        str(kind),
    )


# ------------------------------------------------------------------ the definition


def document_sections(normalized: NormalizedDocument) -> DocumentSections:
    """Every section of ``normalized`` (and its preamble), with exact content."""
    owners = frozenset(Units.of(normalized.units).node_ids)
    text = _Text(normalized, owners)
    rows: list[SectionRow] = []
    preamble = _preamble(normalized, owners, text)
    if preamble is not None:
        rows.append(preamble)
    nodes = normalized.nodes  # sections found by kind: a columnar tree builds only them
    rows.extend(
        _section_row(normalized, nodes[position], owners, text)
        for position, kind in enumerate(normalized.lineage.kinds)
        if kind == SECTION
    )
    return DocumentSections(normalized.document.id, text.value(), tuple(rows))


class _Text:
    """The document's text and the pieces of each section's content in it.

    Non-HTML: the parsed source; a section's pieces are its spans. HTML: the readable
    text (owner blocks' text in tree order, joined by ``_BLOCK_JOIN``); a section's
    blocks are a contiguous run of it (a subtree is contiguous in tree order), checked
    for each section. Content not found where expected (an adapter whose tree breaks
    that rule) is appended after the readable text, so every piece is exact whatever
    the tree.
    """

    def __init__(self, normalized: NormalizedDocument, owners: frozenset[str]) -> None:
        self.readable = normalized.format in _READABLE_FORMATS
        self._offsets: dict[str, int] = {}
        self._extra: list[str] = []
        if not self.readable:
            self._base = normalized.content
        else:
            texts: list[str] = []
            offset = 0
            for node in _blocks(normalized, normalized.root, owners) if normalized.nodes else ():
                if node.text:
                    offset += len(_BLOCK_JOIN) if texts else 0
                    self._offsets[node.node_id] = offset
                    texts.append(node.text)
                    offset += len(node.text)
            self._base = _BLOCK_JOIN.join(texts)
        self._length = len(self._base)

    def value(self) -> str:
        return self._base + "".join(self._extra)

    def spans(self, nodes: Iterable[NormalizedNode]) -> tuple[Piece, ...]:
        """Pieces of the nodes' exact source (non-HTML)."""
        return tuple((span.start, span.end) for node in nodes for span in node.spans)

    def blocks(self, nodes: Sequence[NormalizedNode]) -> tuple[Piece, ...]:
        """The piece of the blocks' readable text (HTML): ``_BLOCK_JOIN`` of their texts."""
        texts = [node for node in nodes if node.text]
        if not texts:
            return ()
        content = _BLOCK_JOIN.join(node.text for node in texts)
        start = self._offsets.get(texts[0].node_id)
        if start is None or not self._base.startswith(content, start):
            start = self._length
            self._extra.append(content)
            self._length += len(content)
        return ((start, start + len(content)),)


def _heading(normalized: NormalizedDocument, section: NormalizedNode) -> NormalizedNode | None:
    """The heading that opens ``section``: its first heading child, if any."""
    for child_id in section.children:
        child = normalized.node(child_id)
        if child.kind == _HEADING:
            return child
    return None


def _blocks(
    normalized: NormalizedDocument, node: NormalizedNode, owners: frozenset[str]
) -> list[NormalizedNode]:
    """Descendants of ``node`` (itself included) that own coverage units, in tree order."""
    found: list[NormalizedNode] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.node_id in owners:
            found.append(current)
        stack.extend(reversed(normalized.children(current)))
    return found


def _section_row(
    normalized: NormalizedDocument, section: NormalizedNode, owners: frozenset[str], text: _Text
) -> SectionRow:
    enclosing = [member for member in normalized.ancestors(section) if member.kind == SECTION]
    headings = [
        heading
        for member in (*enclosing, section)
        if (heading := _heading(normalized, member)) is not None
    ]
    if text.readable:
        # Container text is at most a title; the readable section is its blocks' text.
        pieces = text.blocks(_blocks(normalized, section, owners))
    else:
        pieces = text.spans((section,))
    return SectionRow(
        section_id=section.node_id,
        parent_id=enclosing[-1].node_id if enclosing else None,
        heading_ids=tuple(heading.node_id for heading in headings),
        heading_path=tuple(path_title(heading.text) for heading in headings),
        level=section.level,
        char_start=section.start,
        char_end=section.end,
        pieces=pieces,
    )


def _preamble(
    normalized: NormalizedDocument, owners: frozenset[str], text: _Text
) -> SectionRow | None:
    """The root's non-section children before the first section, as one section."""
    if not normalized.nodes:
        return None
    root = normalized.root
    blocks: list[NormalizedNode] = []
    for child in normalized.children(root):
        if child.kind == SECTION:
            break
        blocks.append(child)
    if not blocks and root.node_id in owners:
        blocks = [root]  # an adapter whose root owns the whole text (no blocks at all)
    blocks = [block for block in blocks if block.spans]
    if not blocks:
        return None
    if text.readable:
        readable = [b for block in blocks for b in _blocks(normalized, block, owners)] or blocks
        pieces = text.blocks(readable)
    else:
        pieces = ((blocks[0].start, blocks[-1].end),)
    return SectionRow(
        section_id=root.node_id,
        parent_id=None,
        heading_ids=(),
        heading_path=(),
        level=None,
        char_start=blocks[0].start,
        char_end=blocks[-1].end,
        pieces=pieces,
        kind=PREAMBLE,
    )


# ------------------------------------------------------------------ resolving a hit


def choose(
    sections: Mapping[str, SectionRow],
    preamble: SectionRow | None,
    hit_id: str,
    document_id: str,
    metadata: Mapping[str, Any],
    section_ids: Sequence[object],
    ancestors: bool,
    missing: Literal["raise", "skip"],
) -> list[SectionRow]:
    """The rows a hit resolves to, in source order, each once (``SectionIndex.resolve``).

    ``sections`` maps section ids to rows of kind ``"section"``; an id it lacks raises
    ``KeyError`` unless ``missing="skip"``. The preamble comes first when the hit starts
    before the first section.
    """
    chosen: dict[str, SectionRow] = {}
    for section_id in section_ids:
        row = sections.get(section_id) if isinstance(section_id, str) else None
        if row is None:
            if missing == "skip":
                continue
            raise KeyError(
                f"section {section_id!r} of hit {hit_id!r} is not a section of document "
                f"{document_id!r}; re-index the current parent or pass missing='skip'"
            )
        chain = [row]
        while ancestors and chain[-1].parent_id is not None:
            parent = sections.get(chain[-1].parent_id)
            if parent is None:
                break
            chain.append(parent)
        for member in reversed(chain):
            chosen.setdefault(member.section_id, member)
    # Source order; an enclosing section before the subsection it starts with.
    ordered = sorted(chosen.values(), key=lambda row: (row.char_start, -row.char_end))
    if preamble is not None and _starts_in_preamble(metadata, section_ids, preamble):
        ordered.insert(0, preamble)
    return ordered


def _starts_in_preamble(
    metadata: Mapping[str, Any], section_ids: Sequence[object], preamble: SectionRow
) -> bool:
    if not section_ids:
        return True
    char_start = metadata.get("char_start")
    return type(char_start) is int and char_start < preamble.char_end
