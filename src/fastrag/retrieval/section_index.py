"""``SectionIndex``: from a retrieved structural chunk back to its source sections.

Small chunks embed well; answers often need the section around them. A structural chunk
records its ``document_id`` and ``section_ids`` (see ``fastrag.packing.contract``), so
expanding a hit needs only the normalized parents it came from — no database and no
re-parsing. The index is in memory and has no persistence or eviction: an application
whose parents outlive the process stores them itself and rebuilds the index (``fastrag
ingest --store`` does: ``fastrag.retrieval.section_store``).

Content before a document's first heading belongs to no section. A hit that starts
there (``section_ids == ()``, or ``char_start`` before the first section) resolves to a
``"preamble"`` section: the root's non-section children, with ``section_id`` set to the
root node's id and an empty heading path. A document without such content adds nothing.

What a section is, and how a hit picks sections, is defined once in
``fastrag.retrieval._sections`` (the persistent ``SectionStore`` uses the same code).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from fastrag.exceptions import ConfigurationError, ValidationError
from fastrag.models import Document
from fastrag.normalization.model import NormalizedDocument
from fastrag.retrieval._sections import (
    SECTION,
    DocumentSections,
    SectionRow,
    choose,
    document_sections,
)

__all__ = ["ResolvedSection", "SectionIndex"]

_MISSING: Final = ("raise", "skip")


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
    kind: str = SECTION


class SectionIndex:
    """Resolve structural hits to the merged source sections of in-memory parents."""

    def __init__(self, normalized_documents: Iterable[NormalizedDocument]) -> None:
        self._documents: dict[str, NormalizedDocument] = {}
        # Per parent, computed on its first hit: every section, by id.
        self._sections: dict[str, _Lookup] = {}
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
        document_id, section_ids = hit_fields(hit, missing)
        normalized = self._documents.get(document_id)
        if normalized is None:
            if missing == "skip":
                return ()
            raise KeyError(
                f"document {document_id!r} of hit {hit.id!r} is not in this SectionIndex; "
                "add its normalized parent or pass missing='skip'"
            )
        lookup = self._sections.get(document_id)
        if lookup is None:
            lookup = self._sections[document_id] = _Lookup(document_sections(normalized))
        return lookup.resolve(hit, section_ids, ancestors, missing)


class _Lookup:
    """One document's sections by id, and their resolution into ``ResolvedSection``."""

    __slots__ = ("by_id", "sections")

    def __init__(self, sections: DocumentSections) -> None:
        self.sections = sections
        self.by_id = {row.section_id: row for row in sections.rows if row.kind == SECTION}

    def resolve(
        self,
        hit: Document,
        section_ids: Sequence[object],
        ancestors: bool,
        missing: Literal["raise", "skip"],
    ) -> tuple[ResolvedSection, ...]:
        sections = self.sections
        rows = choose(
            self.by_id,
            sections.preamble,
            hit.id,
            sections.document_id,
            hit.metadata,
            section_ids,
            ancestors,
            missing,
        )
        return tuple(resolved(sections.document_id, row, sections.content(row)) for row in rows)


def resolved(document_id: str, row: SectionRow, content: str) -> ResolvedSection:
    """The public form of one row."""
    return ResolvedSection(
        document_id=document_id,
        section_id=row.section_id,
        heading_ids=row.heading_ids,
        heading_path=row.heading_path,
        level=row.level,
        content=content,
        char_start=row.char_start,
        char_end=row.char_end,
        kind=row.kind,
    )


def hit_fields(hit: Document, missing: object) -> tuple[str, tuple[object, ...]]:
    """A hit's ``document_id`` and ``section_ids``; errors for a malformed hit or option."""
    if missing not in _MISSING:
        raise ConfigurationError(f"missing must be 'raise' or 'skip' (got {missing!r})")
    document_id = _field(hit.metadata, hit.id, "document_id", str)
    section_ids = tuple(_field(hit.metadata, hit.id, "section_ids", (tuple, list)))
    return document_id, section_ids


def _field(
    metadata: Mapping[str, Any], hit_id: str, key: str, kind: type | tuple[type, ...]
) -> Any:
    value = metadata.get(key)
    if not isinstance(value, kind):
        raise ValidationError(
            f"hit {hit_id!r} has no valid metadata[{key!r}] (got {value!r:.60}); resolve "
            "structural chunks, whose metadata carries document_id and section_ids"
        )
    return value
