"""``SectionIndex``: from a retrieved structural chunk back to its source sections.

Small chunks embed well; answers often need the section around them. A structural chunk
records its ``document_id`` and ``section_ids`` (see ``fastrag.packing.contract``), so
expanding a hit needs only the normalized parents it came from — no database and no
re-parsing. The index is in memory and has no persistence or eviction: an application
whose parents outlive the process stores them itself and rebuilds the index.

Content before a document's first heading belongs to no section. A hit that starts
there (``section_ids == ()``, or ``char_start`` before the first section) resolves to a
``"preamble"`` section: the root's non-section children, with ``section_id`` set to the
root node's id and an empty heading path. A document without such content adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from fastrag.exceptions import ConfigurationError, ValidationError
from fastrag.models import Document
from fastrag.normalization.model import NormalizedDocument, NormalizedNode

__all__ = ["ResolvedSection", "SectionIndex"]

_SECTION: Final = "section"
_HEADING: Final = "heading"
_PREAMBLE: Final = "preamble"
# Formats whose node text is a readable serialization rather than the source slice.
_READABLE_FORMATS: Final = frozenset({"html"})
_BLOCK_JOIN: Final = "\n\n"


@dataclass(frozen=True, slots=True)
class ResolvedSection:
    """One source section of a normalized parent, ready to hand to an application.

    ``content`` is the section's exact source text — the concatenation of its spans, from
    its heading to the end of its body, nested subsections included — except for HTML,
    whose source is markup: there it is the readable text the normalizer serialized.
    ``char_start``/``char_end`` bound its spans in the parent's source. ``kind`` is
    ``"section"`` or ``"preamble"`` (content before the first heading).
    """

    document_id: str
    section_id: str
    heading_ids: tuple[str, ...]
    heading_path: tuple[str, ...]
    level: int | None
    content: str
    char_start: int
    char_end: int
    kind: str = _SECTION


class SectionIndex:
    """Resolve structural hits to the merged source sections of in-memory parents."""

    def __init__(self, normalized_documents: Iterable[NormalizedDocument]) -> None:
        self._documents: dict[str, NormalizedDocument] = {}
        # Per parent, computed once: nodes that own units, and the preamble section.
        self._owners: dict[str, frozenset[str]] = {}
        self._preambles: dict[str, ResolvedSection | None] = {}
        for normalized in normalized_documents:
            if not isinstance(normalized, NormalizedDocument):
                raise ConfigurationError(
                    "SectionIndex takes NormalizedDocument values (got "
                    f"{type(normalized).__name__}); pass chunker.normalizers.normalize(parent)"
                )
            document_id = normalized.document.id
            known = self._documents.get(document_id)
            if known is not None and known.content != normalized.content:
                raise ConfigurationError(
                    f"two different parents share document id {document_id!r}; give each "
                    "parent Document a distinct id"
                )
            self._documents[document_id] = normalized
            owners = frozenset(unit.node_id for unit in normalized.units)
            self._owners[document_id] = owners
            self._preambles[document_id] = _preamble(normalized, owners)

    def __len__(self) -> int:
        return len(self._documents)

    def __contains__(self, document_id: object) -> bool:
        return document_id in self._documents

    def resolve(
        self,
        hit: Document,
        ancestors: bool = True,
        missing: Literal["raise", "skip"] = "raise",
    ) -> tuple[ResolvedSection, ...]:
        """The source sections ``hit`` was cut from, in source order, each once.

        ``ancestors=True`` adds every enclosing section of those sections. A parent or
        section this index does not hold raises ``KeyError`` naming it; with
        ``missing="skip"`` it is left out and the available subset is returned.
        """
        if missing not in ("raise", "skip"):
            raise ConfigurationError(f"missing must be 'raise' or 'skip' (got {missing!r})")
        metadata = hit.metadata
        document_id = _field(hit, "document_id", str)
        section_ids: tuple[str, ...] = tuple(_field(hit, "section_ids", (tuple, list)))
        normalized = self._documents.get(document_id)
        if normalized is None:
            if missing == "skip":
                return ()
            raise KeyError(
                f"document {document_id!r} of hit {hit.id!r} is not in this SectionIndex; "
                "add its normalized parent or pass missing='skip'"
            )
        chosen: dict[str, NormalizedNode] = {}
        for section_id in section_ids:
            node = _section(normalized, section_id)
            if node is None:
                if missing == "skip":
                    continue
                raise KeyError(
                    f"section {section_id!r} of hit {hit.id!r} is not a section of document "
                    f"{document_id!r}; re-index the current parent or pass missing='skip'"
                )
            chain = [*normalized.ancestors(node), node] if ancestors else [node]
            for member in chain:
                if member.kind == _SECTION:
                    chosen.setdefault(member.node_id, member)
        # Source order; an enclosing section before the subsection it starts with.
        sections = sorted(chosen.values(), key=lambda node: (node.start, -node.end))
        owners = self._owners[document_id]
        resolved = [_resolve(normalized, node, owners) for node in sections]
        preamble = self._preambles[document_id]
        if preamble is not None and _starts_in_preamble(metadata, section_ids, preamble):
            resolved.insert(0, preamble)
        return tuple(resolved)


def _field(hit: Document, key: str, kind: type | tuple[type, ...]) -> Any:
    value = hit.metadata.get(key)
    if not isinstance(value, kind):
        raise ValidationError(
            f"hit {hit.id!r} has no valid metadata[{key!r}] (got {value!r:.60}); resolve "
            "structural chunks, whose metadata carries document_id and section_ids"
        )
    return value


def _section(normalized: NormalizedDocument, section_id: object) -> NormalizedNode | None:
    if not isinstance(section_id, str) or section_id not in normalized:
        return None
    node = normalized.node(section_id)
    return node if node.kind == _SECTION else None


def _heading(normalized: NormalizedDocument, section: NormalizedNode) -> NormalizedNode | None:
    """The heading that opens ``section``: its first heading child, if any."""
    for child_id in section.children:
        child = normalized.node(child_id)
        if child.kind == _HEADING:
            return child
    return None


def _text(normalized: NormalizedDocument, nodes: Iterable[NormalizedNode]) -> str:
    """Exact source of the nodes' spans; for HTML, their readable serialization."""
    if normalized.format in _READABLE_FORMATS:
        return _BLOCK_JOIN.join(node.text for node in nodes if node.text)
    content = normalized.content
    return "".join(span.slice(content) for node in nodes for span in node.spans)


def _resolve(
    normalized: NormalizedDocument, section: NormalizedNode, owners: frozenset[str]
) -> ResolvedSection:
    headings = [
        heading
        for member in (*normalized.ancestors(section), section)
        if member.kind == _SECTION and (heading := _heading(normalized, member)) is not None
    ]
    if normalized.format in _READABLE_FORMATS:
        # Container text is at most a title; the readable section is its blocks' text.
        content = _text(normalized, _blocks(normalized, section, owners))
    else:
        content = _text(normalized, (section,))
    return ResolvedSection(
        document_id=normalized.document.id,
        section_id=section.node_id,
        heading_ids=tuple(heading.node_id for heading in headings),
        heading_path=tuple(heading.text for heading in headings),
        level=section.level,
        content=content,
        char_start=section.start,
        char_end=section.end,
    )


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


def _preamble(normalized: NormalizedDocument, owners: frozenset[str]) -> ResolvedSection | None:
    """The root's non-section children before the first section, as one section."""
    if not normalized.nodes:
        return None
    root = normalized.root
    blocks: list[NormalizedNode] = []
    for child in normalized.children(root):
        if child.kind == _SECTION:
            break
        blocks.append(child)
    if not blocks and root.node_id in owners:
        blocks = [root]  # an adapter whose root owns the whole text (no blocks at all)
    blocks = [block for block in blocks if block.spans]
    if not blocks:
        return None
    if normalized.format in _READABLE_FORMATS:
        readable = [b for block in blocks for b in _blocks(normalized, block, owners)] or blocks
        content = _text(normalized, readable)
    else:
        content = normalized.content[blocks[0].start : blocks[-1].end]
    return ResolvedSection(
        document_id=normalized.document.id,
        section_id=root.node_id,
        heading_ids=(),
        heading_path=(),
        level=None,
        content=content,
        char_start=blocks[0].start,
        char_end=blocks[-1].end,
        kind=_PREAMBLE,
    )


def _starts_in_preamble(
    metadata: Mapping[str, Any], section_ids: tuple[str, ...], preamble: ResolvedSection
) -> bool:
    if not section_ids:
        return True
    char_start = metadata.get("char_start")
    return type(char_start) is int and char_start < preamble.char_end
