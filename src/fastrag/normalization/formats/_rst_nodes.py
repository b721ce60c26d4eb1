"""What each docutils node becomes in the normalized tree: kind, role, start line, attributes.

A table, not an ``if`` chain: ``SPEC`` maps a docutils tag name to its role in the tiling
(``leaf`` owns its whole range, ``container`` owns only the syntax before its first
child, ``exclude`` is excluded with the given reason) and to its node kind. Tags not in
the table are leaves of kind ``directive`` (whatever a directive docutils ships produced).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastrag.normalization.formats._rst_text import (
    MARKERS,
    first_token,
    option_label,
    trim,
)

__all__ = [
    "LINKED",
    "MARKER_OF",
    "SPEC",
    "attributes_of",
    "participants",
    "rows_ordered",
    "start_line",
]

# tag name -> (role, kind).
SPEC: dict[str, tuple[str, str]] = {
    "title": ("leaf", "heading"),  # a section's title only (see participants)
    "paragraph": ("leaf", "paragraph"),
    "attribution": ("leaf", "paragraph"),
    "literal_block": ("leaf", "code"),
    "doctest_block": ("leaf", "code"),
    "math_block": ("leaf", "math"),
    "line_block": ("leaf", "line_block"),
    "transition": ("exclude", "markup"),  # a horizontal rule: no text
    "image": ("leaf", "image"),
    "figure": ("leaf", "image"),
    "reference": ("leaf", "image"),  # an image with :target:
    "term": ("leaf", "definition_term"),
    "row": ("leaf", "table_row"),
    "substitution_definition": ("leaf", "directive"),
    "rubric": ("leaf", "heading"),  # informal: a heading leaf, no section
    "pending": ("leaf", "directive"),
    "meta": ("leaf", "directive"),
    "system_message": ("leaf", "paragraph"),  # only recorded ones: refused constructs
    "comment": ("exclude", "comment"),
    "target": ("exclude", "markup"),
    "raw": ("exclude", "directive"),
    "section": ("container", "section"),
    "bullet_list": ("container", "list"),
    "enumerated_list": ("container", "list"),
    "option_list": ("container", "list"),
    "list_item": ("container", "list_item"),
    "option_list_item": ("container", "list_item"),
    "definition_list": ("container", "definition_list"),
    "definition": ("container", "definition"),
    "field_list": ("container", "field_list"),
    "field": ("container", "field"),
    "block_quote": ("container", "blockquote"),
    "footnote": ("container", "footnote"),
    "citation": ("container", "footnote"),
    "table": ("container", "table"),
    "topic": ("container", "directive"),
    "sidebar": ("container", "directive"),
    "container": ("container", "directive"),
    "compound": ("container", "directive"),
    "fr_directive": ("container", "directive"),
}
for _name in (
    "attention",
    "caution",
    "danger",
    "error",
    "hint",
    "important",
    "note",
    "tip",
    "warning",
    "admonition",
):
    SPEC[_name] = ("container", "admonition")
# Children that are part of their parent's own syntax line, never blocks of their own.
_SKIP = frozenset(
    {
        "title",
        "subtitle",
        "label",
        "field_name",
        "classifier",
        "option_group",
        "colspec",
        "decoration",
        "#text",
    }
)
# Wrappers whose children belong directly to the enclosing container.
_SPLICE = frozenset(
    {"definition_list_item", "field_body", "description", "tgroup", "tbody", "thead"}
)
# Containers whose first child may share their first line, after this marker.
MARKER_OF = {
    "list_item": "list_item",
    "option_list_item": "option_list_item",
    "field": "field",
    "footnote": "footnote",
    "citation": "footnote",
}
# Leaf kinds whose text is scanned for links.
LINKED = frozenset({"paragraph", "table_row", "definition_term", "line_block", "heading"})


def start_line(dnode: Any) -> int | None:
    """The 0-based line a block starts on: recorded, docutils' own, or its first child's."""
    pending = [dnode]
    while pending:
        current = pending.pop()
        recorded = getattr(current, "fr_start", None)
        if recorded is not None:
            return int(recorded)
        line = getattr(current, "line", None)
        if line and current.tagname != "title":  # a title's line is its underline
            return int(line) - 1
        pending.extend(reversed(getattr(current, "children", ())))
    return None


def participants(dnode: Any) -> Iterator[tuple[Any, bool]]:
    """Block children of ``dnode`` in order, wrappers spliced, ``(child, is_header_row)``.

    A section's title is a participant (it becomes the heading); other titles are part
    of their directive's own syntax. Unrecorded system messages are not blocks: their
    source stays with the block before them.
    """
    pending: list[tuple[Any, bool]] = [(child, False) for child in reversed(dnode.children)]
    is_section = dnode.tagname == "section"
    while pending:
        child, header = pending.pop()
        tag = child.tagname
        if is_section and tag == "title" and child is dnode.children[0]:
            yield child, False
        elif tag in _SPLICE:
            header = header or tag == "thead"
            pending.extend((grandchild, header) for grandchild in reversed(child.children))
        elif not (
            tag in _SKIP
            or getattr(child, "fr_skip", False)
            or (tag == "system_message" and getattr(child, "fr_start", None) is None)
        ):
            yield child, header


def rows_ordered(table: Any) -> bool:
    """Whether each row starts below the last (csv-table rows carry no usable lines)."""
    lines = [start_line(row) for row, _ in participants(table) if row.tagname == "row"]
    return bool(lines) and all(
        line is not None and (before is None or line > before)
        for before, line in zip([None, *lines[:-1]], lines, strict=True)
    )


def _words(text: object) -> str:
    return " ".join(str(text).split())


def attributes_of(
    content: str,
    dnode: Any,
    kind: str,
    span: tuple[int, int],
    header: bool,
    list_depth: int,
    highlight: str | None,
) -> dict[str, Any]:
    """The node's attributes; ``span`` is its tile, ``highlight`` the current default."""
    tag = dnode.tagname
    first, end = trim(content, *span)[0], span[1]
    if tag == "fr_flat":
        return {"flattened": True}
    if tag == "attribution":
        return {"attribution": True}
    if kind == "code":
        language = getattr(dnode, "fr_language", None)
        if tag == "doctest_block":
            language = "pycon"
        elif language is None and getattr(dnode, "fr_name", None) is None:
            language = highlight  # a `::` block: Sphinx's highlight directive applies
        return {"language": language} if language else {}
    if kind == "list":
        if tag == "enumerated_list":
            return {"ordered": True, "start": int(dnode.get("start", 1))}
        return {"ordered": False}
    if kind == "list_item":
        label = (
            option_label(content, first, end)
            if tag == "option_list_item"
            else first_token(content, first, end)
        )
        return {"label": label, "depth": list_depth}
    if kind == "table_row":
        return {"header": header}
    if kind == "table":
        groups = [child for child in dnode.children if child.tagname == "tgroup"]
        return {"columns": int(groups[0].get("cols", 0))} if groups else {}
    if kind == "field":
        names = [child for child in dnode.children if child.tagname == "field_name"]
        return {"name": _words(names[0].rawsource)} if names else {}
    if kind == "footnote":
        found = MARKERS["footnote"].match(content, first, end)
        label = found.group().strip()[2:].strip()[1:-1] if found else ""
        return {"label": label, "citation": True} if tag == "citation" else {"label": label}
    if kind == "image":
        images = [dnode] if tag == "image" else list(dnode.findall(lambda n: n.tagname == "image"))
        uri = images[0].get("uri") if images else None
        return {"uri": uri} if uri else {}
    if kind in ("admonition", "directive"):
        if tag == "substitution_definition":
            names = dnode.get("names", ())
            return (
                {"name": "substitution", "argument": names[0]}
                if names
                else {"name": "substitution"}
            )
        result: dict[str, Any] = {"name": _words(getattr(dnode, "fr_name", None) or tag).lower()}
        argument = _words(getattr(dnode, "fr_argument", ""))
        if argument:
            result["argument"] = argument
        return result
    return {}
