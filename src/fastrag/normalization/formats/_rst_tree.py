"""Map a docutils doctree onto source offsets: a draft tree plus a coverage partition.

docutils knows lines, not columns, and its ``line`` is not always the first line of a
block (``_rst_docutils`` records the ones it gets wrong as ``fr_start``). The mapping
therefore needs only one fact per block — the line it **starts** on — and derives every
range by tiling:

* a container's children, in order, each own ``[their start, next sibling's start)``;
  the last one runs to the container's end, the document's to the end of the content;
* a child that starts on its container's first line (``- text``, ``:field: text``,
  ``.. note:: text``) starts right after the container's marker, found by a regular
  expression at the container's first non-blank character;
* the stretch before a container's first child is its own syntax (a list marker, a
  directive's name, argument and options, a table's top border): the container owns it;
* a leaf owns its whole tile; leading and trailing whitespace of every owned stretch is
  excluded as ``whitespace``, comments as ``comment``, targets and markup-only directives
  as ``markup``, refused ``raw``/``include`` as ``directive``.

Every line thus lands in exactly one tile, so units and exclusions partition the content
whatever docutils reports. A line docutils attributes to nothing (a construct it rejected
with a system message) stays with the block before it — or, after an excluded construct
(whose own extent is recorded), becomes a ``paragraph``: text is never excluded by
accident. The walk is one pre-order pass with an explicit
stack: no recursion, linear in the number of nodes plus the length of the content.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from fastrag.normalization.formats._rst_nodes import (
    LINKED,
    MARKER_OF,
    SPEC,
    attributes_of,
    participants,
    rows_ordered,
    start_line,
)
from fastrag.normalization.formats._rst_text import (
    MARKERS,
    line_starts,
    links_in,
    normalize_name,
    readable_title,
    trim,
)

__all__ = ["Draft", "DraftNode", "build_draft"]

# fr_marker roles excluded, and their exclusion reason (others become directive leaves).
_MARKER_ROLES = {"markup": "markup", "refused": "directive"}
# Sphinx's conditional content (``.. only:: html``, ``.. ifconfig:: x``): the body is
# the document's, the directive line a build condition that renders nothing.
_CONDITIONS = frozenset({"only", "ifconfig"})
# Directives whose nodes docutils places away from the directive (``meta`` in the
# document's head): nothing renders where they stand, so their source is markup (a
# redirect stub's ``:http-equiv=refresh:`` came out as a chunk).
_PLACED_ELSEWHERE = frozenset({"meta"})
# Sphinx's special file-wide metadata fields: they configure the build, render nothing.
_SPHINX_META = frozenset({"tocdepth", "orphan", "nocomments", "nosearch"})


_SPHINX_INDEX_REF = re.compile(r":ref:`(?:genindex|modindex|search)`")


def _sphinx_indices(section: Any) -> bool:
    """Whether a section holds nothing but a list of Sphinx's generated index pages."""
    children = section.children
    if len(children) != 2 or children[1].tagname != "bullet_list":
        return False
    items = children[1].children
    return bool(items) and all(_SPHINX_INDEX_REF.fullmatch(item.astext().strip()) for item in items)


# A paragraph of substitution references only (``|PyPI| |CI|``, ``|Logo|``): in a README
# each names an image defined elsewhere, so the paragraph's own source shows nothing.
_SUBSTITUTION = r"\|(?! )([^|\r\n]*[^| \r\n])\|(_{0,2})"  # |name|, |name|_ (linked)
_SUBSTITUTION_REFERENCE = re.compile(_SUBSTITUTION)
_SUBSTITUTIONS_ONLY = re.compile(rf"(?:{_SUBSTITUTION}\s*)+")


def _substitutions(document: Any) -> tuple[dict[str, bool], dict[str, str]]:
    """The document's substitutions by name, in one pass: those that stand for an image
    (whether the image is linked), and what each text substitution shows (``.. |ASN.1|
    replace:: BitString``)."""
    images: dict[str, bool] = {}
    texts: dict[str, str] = {}
    for name, definition in document.substitution_defs.items():
        tags = {node.tagname for node in definition.findall(include_self=False)}
        if "image" in tags:
            images[normalize_name(name)] = "reference" in tags
            continue
        text = " ".join(definition.astext().split())
        if text:
            texts[normalize_name(name)] = text
    return images, texts


def _has_alt(dnode: Any) -> bool:
    """Whether an image (or the image inside an image reference) has alternative text."""
    return any(image.get("alt") for image in dnode.findall(lambda n: n.tagname == "image"))


@dataclass(slots=True)
class DraftNode:
    """A node under construction; ``start``/``end`` is its trimmed source range."""

    kind: str
    parent: int
    start: int
    end: int
    text: str
    level: int | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    children: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Draft:
    """The mapped tree: nodes in pre-order (``nodes[0]`` the root) and owned ranges."""

    nodes: list[DraftNode]
    # (start, end, owner node index or -1, exclusion reason), in source order, no gaps
    # filled yet: the caller adds whitespace exclusions between them.
    owned: list[tuple[int, int, int, str]]
    notes: list[tuple[int, str]]


@dataclass(slots=True)
class _Frame:
    """A container being walked: its children's tiles and where the walk is."""

    node: int  # draft index of the container
    items: list[tuple[Any, int, int, int, bool]]  # (dnode, start, end, line, header)
    position: int = 0
    section_level: int = 0
    list_depth: int = 0


class _Mapper:
    """One document's walk; ``owned`` collects units and exclusions in source order."""

    def __init__(self, content: str) -> None:
        self.content = content
        self.starts = line_starts(content)
        self.nodes: list[DraftNode] = []
        self.owned: list[tuple[int, int, int, str]] = []
        self.offset_notes: list[tuple[int, str]] = []
        self.targets: dict[str, str] = {}
        self.linked: list[int] = []
        self.highlight: str | None = None
        self.image_substitutions: dict[str, bool] = {}
        self.text_substitutions: dict[str, str] = {}

    def offset(self, line: int) -> int:
        """Where 0-based ``line`` starts; past the last line, the end of the content."""
        if line >= len(self.starts):
            return len(self.content)
        return self.starts[max(line, 0)]

    def add(
        self,
        kind: str,
        parent: int,
        start: int,
        end: int,
        text: str,
        level: int | None = None,
        attributes: dict[str, Any] | None = None,
    ) -> int:
        index = len(self.nodes)
        self.nodes.append(DraftNode(kind, parent, start, end, text, level, attributes or {}))
        if parent >= 0:
            self.nodes[parent].children.append(index)
        return index

    def tiles(
        self,
        dnode: Any,
        start: int,
        end: int,
        first_line: int,
        marker: re.Pattern[str] | None,
        first_at_start: bool,
    ) -> tuple[int, list[tuple[Any, int, int, int, bool]]]:
        """Where the container's own syntax ends, and each child's ``[start, end)``."""
        children: list[tuple[Any, int, int, bool]] = []
        previous = start
        for child, header in participants(dnode):
            line = first_line if first_at_start and not children else start_line(child)
            if line is None:
                continue
            if child.tagname == "literal_block" and line > first_line:
                line = self.expanded_literal(child, line, first_line)
            if line <= first_line:
                offset = start
                if marker is not None and not children:
                    found = trim(self.content, start, end)[0]
                    match = marker.match(self.content, found, end)
                    offset = match.end() if match else start
                line = first_line
            else:
                offset = self.offset(line)
            offset = min(max(offset, previous), end)
            children.append((child, offset, line, header))
            previous = offset
        items = []
        for position, (child, offset, line, header) in enumerate(children):
            stop = children[position + 1][1] if position + 1 < len(children) else end
            items.append((child, offset, stop, line, header))
        own_end = children[0][1] if children else end
        return own_end, items

    def expanded_literal(self, block: Any, line: int, floor: int) -> int:
        """A ``::`` paragraph of its own renders nothing: it belongs to its literal block."""
        if getattr(block, "fr_start", None) is not None:
            return line
        previous = line - 1
        while previous >= floor:
            text = self.content[self.offset(previous) : self.offset(previous + 1)].strip()
            if text == "::":
                return previous
            if text:
                break
            previous -= 1
        return line

    def _sphinx_metadata(self, frame: _Frame, dnode: Any) -> bool:
        """Whether a field list is Sphinx file-wide metadata (``:orphan:``, ``:tocdepth: 2``).

        Sphinx documents a field list before any other content as metadata that renders
        nothing; only its own special fields are taken as such (docutils' bibliographic
        fields, ``:Author:`` and the like, do render), so the list is kept otherwise.
        """
        if frame.node != 0 or any(owner >= 0 for _, _, owner, _ in self.owned):
            return False
        names = [
            " ".join(child.children[0].astext().split()).lower()
            for child in dnode.children
            if child.tagname == "field" and child.children
        ]
        return bool(names) and len(names) == len(dnode.children) and set(names) <= _SPHINX_META

    def exclude(self, frame: _Frame, dnode: Any, start: int, end: int, reason: str) -> int:
        """Exclude the construct's own lines; text docutils dropped after it stays prose.

        A malformed block right after a comment or target yields no node, so its lines
        would join the exclusion's tile; they are kept as a ``paragraph`` instead. A
        transition is one line wherever docutils says it ends.
        """
        if dnode.tagname == "transition":
            first_line = bisect_right(self.starts, trim(self.content, start, end)[0]) - 1
            split = min(max(self.offset(first_line + 1), start), end)
        else:
            construct_end = getattr(dnode, "fr_end", None)
            split = (
                end if construct_end is None else min(max(self.offset(construct_end), start), end)
            )
        first, _ = self.own(start, split, -1, reason)
        rest_first, rest_last = trim(self.content, split, end)
        if rest_first < rest_last:
            leaf = self.add(
                "paragraph", frame.node, rest_first, rest_last, self.content[rest_first:rest_last]
            )
            self.owned.append((rest_first, rest_last, leaf, ""))
            self.linked.append(leaf)
        return first

    def own(self, start: int, end: int, owner: int, reason: str = "") -> tuple[int, int]:
        first, last = trim(self.content, start, end)
        if first < last:
            self.owned.append((first, last, owner, reason))
        return first, last

    def build(self, document: Any) -> list[DraftNode]:
        content = self.content
        self.image_substitutions, self.text_substitutions = _substitutions(document)
        root = self.add("document", -1, 0, len(content), "")
        own_end, items = self.tiles(document, 0, len(content), 0, None, False)
        self.container_header(root, 0, own_end)
        stack = [_Frame(root, items)]
        while stack:
            frame = stack[-1]
            if frame.position >= len(frame.items):
                stack.pop()
                continue
            dnode, start, end, line, header = frame.items[frame.position]
            frame.position += 1
            pushed = self.visit(frame, dnode, start, end, line, header)
            if pushed is not None:
                stack.append(pushed)
        for index in self.linked:
            node = self.nodes[index]
            found = links_in(node.text, self.targets)
            if found:
                node.attributes["links"] = found
        titles = [
            self.nodes[c].text for c in self.nodes[0].children if self.nodes[c].kind == "section"
        ]
        self.nodes[0].text = titles[0] if titles else ""
        return self.nodes

    def title(self, raw: str) -> str:
        """A heading's name: its readable text, text substitutions shown as they read
        (pyasn1's ``|ASN.1| type`` pages are "BitString type", "Integer type" …)."""
        substitutions = self.text_substitutions
        if substitutions and "|" in raw:
            raw = _SUBSTITUTION_REFERENCE.sub(
                lambda found: substitutions.get(normalize_name(found[1]), found[0]), raw
            )
        return readable_title(raw)

    def container_header(self, index: int, start: int, end: int) -> None:
        """The container's own syntax before its first child; prose at top level."""
        kind = self.nodes[index].kind
        if kind in ("document", "section"):
            first, last = trim(self.content, start, end)
            if first < last:
                leaf = self.add("paragraph", index, first, last, self.content[first:last])
                self.owned.append((first, last, leaf, ""))
                self.linked.append(leaf)
        elif self.nodes[index].attributes.get("name") in _CONDITIONS:
            self.own(start, end, -1, "markup")  # a build condition shows nothing itself
        else:
            self.own(start, end, index)

    def visit(
        self, frame: _Frame, dnode: Any, start: int, end: int, line: int, header: bool
    ) -> _Frame | None:
        tag = dnode.tagname
        role, kind = SPEC.get(tag, ("leaf", "directive"))
        if tag == "fr_marker":
            self.marker(frame, dnode, start, end)
            return None
        if tag == "fr_flat":
            role, kind = "leaf", dnode.fr_kind
        if role == "exclude":
            if tag == "target" and dnode.get("refuri"):
                for name in dnode.get("names", ()):
                    self.targets.setdefault(name, dnode["refuri"])
            self.exclude(frame, dnode, start, end, kind)
            return None
        if tag == "field_list" and self._sphinx_metadata(frame, dnode):
            self.own(start, end, -1, "markup")
            return None
        if tag == "section" and _sphinx_indices(dnode):
            # Sphinx quickstart's "Indices and tables" (genindex, modindex, search):
            # links to generated pages, the same in every project; navigation.
            self.own(start, end, -1, "markup")
            return None
        if tag == "reference" and kind == "image":
            # ``.. image::`` with ``:target:``, a linked image: a README's shields ("six
            # on PyPI", "MIT License badge"), a hundred tokens of alt text, URLs and
            # options at the top of its first chunk. Markdown's linked images are badges.
            self.exclude(frame, dnode, start, end, "badges")
            return None
        if kind == "image" and tag != "figure" and not _has_alt(dnode):
            # Without alternative text an image shows nothing readable: its source is a
            # file name and layout options (a banner or badge became a chunk of its own).
            # A figure keeps its caption, so it stays.
            self.exclude(frame, dnode, start, end, "markup")
            return None
        if tag == "line_block" and not dnode.astext().strip():
            # ``|`` lines alone: vertical space under a README's logo, nothing to read.
            self.exclude(frame, dnode, start, end, "markup")
            return None
        if tag == "substitution_definition" and dnode.children:
            inner = dnode.children[0]
            if inner.tagname == "fr_inline_marker":  # ``.. |br| raw:: html``: refused
                self.marker(frame, inner, start, end)
                return None
        if tag == "substitution_definition" and any(
            normalize_name(name) in self.image_substitutions for name in dnode.get("names", ())
        ):
            # ``.. |PyPI| image:: https://…``: an image shown where ``|PyPI|`` stands; the
            # definition itself is a URL and layout options, nothing readable.
            self.exclude(frame, dnode, start, end, "markup")
            return None
        if tag == "paragraph" and self.image_substitutions:
            reason = self._images_only(start, end)
            if reason:
                self.own(start, end, -1, reason)
                return None
        if tag == "table" and not rows_ordered(dnode):
            role = "leaf"
        if tag == "fr_directive" and getattr(dnode, "fr_kind", None):
            kind = dnode.fr_kind
        attributes = attributes_of(
            self.content, dnode, kind, (start, end), header, frame.list_depth, self.highlight
        )
        if role == "leaf":
            first, last = trim(self.content, start, end)
            if first >= last:
                return None
            text = self.content[first:last]
            if kind == "heading":
                text = self.title(dnode.rawsource)
            leaf = self.add(kind, frame.node, first, last, text, attributes=attributes)
            if kind == "heading":  # a section's title, or a rubric one level below it
                self.nodes[leaf].level = frame.section_level + (tag == "rubric")
            self.owned.append((first, last, leaf, ""))
            if kind in LINKED:
                self.linked.append(leaf)
            return None
        first, last = trim(self.content, start, end)
        if first >= last:
            return None
        level = frame.section_level + 1 if kind == "section" else None
        text = ""
        if kind == "section":
            title = dnode.children[0] if dnode.children else None
            text = self.title(title.rawsource) if title is not None else ""
        index = self.add(kind, frame.node, first, last, text, level, attributes)
        marker = MARKERS[MARKER_OF[tag]] if tag in MARKER_OF else None
        if marker is None and kind in ("admonition", "directive"):
            marker = MARKERS["directive"]
        first_at_start = tag == "section" or (
            tag == "table" and getattr(dnode, "fr_start", None) is None
        )
        own_end, items = self.tiles(dnode, start, end, line, marker, first_at_start)
        self.container_header(index, start, own_end)
        if not items:  # a directive without content is a leaf in all but name
            self.nodes[index].text = self.content[first:last]
        return _Frame(
            index,
            items,
            0,
            level or frame.section_level,
            frame.list_depth + (1 if kind == "list" else 0),
        )

    def _images_only(self, start: int, end: int) -> str:
        """``badges`` for a paragraph of linked image substitutions only (a README's
        badge row), ``markup`` when some are unlinked (a logo), ``""`` otherwise."""
        first, last = trim(self.content, start, end)
        if _SUBSTITUTIONS_ONLY.fullmatch(self.content, first, last) is None:
            return ""
        images = self.image_substitutions
        found = [
            (normalize_name(name), bool(link))
            for name, link in _SUBSTITUTION_REFERENCE.findall(self.content, first, last)
        ]
        if not all(name in images for name, _ in found):
            return ""  # a text substitution (``|version|``) shows text
        # Linked by its definition (``:target:``) or where it is used (``|CI|_``).
        return "badges" if all(link or images[name] for name, link in found) else "markup"

    def marker(self, frame: _Frame, dnode: Any, start: int, end: int) -> None:
        name, role = str(dnode.fr_name).lower(), dnode.fr_role
        argument = " ".join(str(dnode.fr_argument).split())
        if name == "highlight":
            self.highlight = argument.split()[0] if argument else None
        if name in _PLACED_ELSEWHERE and role == "empty":
            role = "markup"
        if role in _MARKER_ROLES:
            first = self.exclude(frame, dnode, start, end, _MARKER_ROLES[role])
            if role == "refused":
                self.offset_notes.append(
                    (
                        first,
                        f"'{name[:20]}' directive refused (no file, URL or raw access); "
                        "its source is excluded",
                    )
                )
            return
        first, last = trim(self.content, start, end)
        if first < last:
            attributes: dict[str, Any] = {"name": name}
            if argument:
                attributes["argument"] = argument
            if role == "failed":
                attributes["error"] = True
            leaf = self.add(
                "directive",
                frame.node,
                first,
                last,
                self.content[first:last],
                attributes=attributes,
            )
            self.owned.append((first, last, leaf, ""))


def build_draft(content: str, document: Any, line_notes: tuple[tuple[int, str], ...]) -> Draft:
    """Tile ``content`` by the doctree ``document`` (see the module docstring).

    ``line_notes`` are the parser's ``(0-based line, message)`` notes; the draft's notes
    carry source offsets instead, sorted.
    """
    mapper = _Mapper(content)
    nodes = mapper.build(document)
    notes = [(mapper.offset(line), message) for line, message in line_notes]
    notes.extend(mapper.offset_notes)
    return Draft(nodes, mapper.owned, sorted(notes))
