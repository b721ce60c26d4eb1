"""What the HtmlNormalizer test files share: normalize a string, read texts and exclusions."""

from __future__ import annotations

from fastrag.models import Document
from fastrag.normalization import NormalizedDocument
from fastrag.normalization.formats.html import HtmlNormalizer


def normalize(source: str, **options: object) -> NormalizedDocument:
    normalizer = HtmlNormalizer(**options)  # type: ignore[arg-type]
    return normalizer.normalize(Document("d", "test", source, {"content_format": "html"}))


def texts(tree: NormalizedDocument) -> list[str]:
    return [n.text for n in tree.nodes if n.serialization]


def excluded(tree: NormalizedDocument, reason: str) -> list[str]:
    return [tree.content[e.span.start : e.span.end] for e in tree.exclusions if e.reason == reason]


def outline(tree: NormalizedDocument) -> list[tuple[int | None, str, str]]:
    """Each heading's level, title and the title of the section it is in."""
    rows = []
    for node in tree.nodes:
        if node.kind != "heading":
            continue
        section = tree.node(node.parent_id or "")
        parent = tree.node(section.parent_id or "")
        rows.append((node.level, node.text, parent.text if parent.kind == "section" else ""))
    return rows
