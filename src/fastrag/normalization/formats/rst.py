"""reStructuredText read into a source-faithful tree with exact offsets, through docutils.

docutils parses the block structure (hardened, see ``_rst_docutils``); ``_rst_tree`` maps
it onto code-point offsets by tiling lines. Inline markup is not interpreted: every leaf
keeps its exact source, roles and all.

What the tree looks like (see ``fastrag.normalization.model`` for the shared rules):

* Section titles, in any adornment style (underline, or over- and underline), open
  ``section`` nodes (``level`` 1 for the first style met, 2 for the next …; ``text`` is the
  title) whose first child is a ``heading`` leaf of the same level: its unit covers the
  title's whole source, adornment lines included, its ``text`` is the plain title —
  the one exception to "inline markup is not interpreted": roles, literals, emphasis
  and references are reduced to their readable text (a ``:mod:`` role keeps its text)
  and text substitutions show what they stand for (``|ASN.1| type`` over ``.. |ASN.1|
  replace:: BitString`` is "BitString type"), because the title names the section in
  every chunk's heading path.
* Informal headings are ``heading`` leaves one level below their section, without a
  section of their own: ``.. rubric::`` ("Footnotes"; it showed as its directive line,
  and ended a chunk away from what it heads), and a title where docutils allows no
  section — inside a directive's body (autodoc's ``.. automodule::`` holding
  "Functions" over "---------"), a list item, a quote — which docutils reports and
  which showed as its two source lines.
* Leaves own their source minus surrounding whitespace; ``text`` is that exact slice:
  ``paragraph``, ``code`` (literal blocks, ``code-block``/``sourcecode``/``code``,
  ``doctest`` blocks and directives; ``{"language": ...}`` from the directive's argument,
  ``pycon`` for doctest blocks, or the last ``.. highlight::`` for ``::`` blocks), ``math``,
  ``line_block``, ``image`` (images and figures, ``{"uri": ...}``),
  ``definition_term``, ``table_row`` (``{"header": bool}``; in grid and simple tables the
  first row owns the top border and every row the border line below it, so a repeated
  header row is valid table syntax).
* Containers own only their own syntax before their first child (a list marker, a
  directive's name, argument and options; nothing for sections, whose heading is a
  child), and have ``text == ""`` — except a directive without a body, whose ``text``
  is its source like a leaf's. They are ``list`` (``{"ordered": bool}``, ``"start"``
  when ordered), ``list_item`` (``{"label": "-" | "3." | "(a)" | "-v, --verbose",
  "depth": n}``), ``definition_list`` (``definition_term`` leaves and ``definition``
  containers), ``field_list`` and ``field`` (``{"name": ...}``), ``blockquote``,
  ``footnote`` (``{"label": ...}``, citations add ``"citation": True``), ``table``
  (``{"columns": n}``), ``admonition`` (``{"name": "note"}``) and ``directive``
  (``{"name": ..., "argument": ...}``, whose content is parsed as reST: Sphinx's
  ``function``, ``class``, ``versionadded``, ``toctree`` …).
* Directives that render nothing: ``.. highlight::``, ``.. index::``, ``.. role::``,
  autodoc's ``.. autofunction::`` … without a body (the code they document is never
  imported; with a body, the author's text, they are ``directive`` containers) are
  excluded as ``markup``, and so is an unknown directive with neither body nor options
  whose argument is a file's path (it would pull its text from that file, which is never
  read: CMake's ``.. cmake-module:: ../../Modules/FindBZip2.cmake``), and the line of
  a build condition (``.. only:: html``, ``.. ifconfig:: …``; its body stays); so is a leading
  field list of only Sphinx's file-wide metadata fields (``:orphan:``, ``:tocdepth:``,
  ``:nocomments:``, ``:nosearch:``); so are hyperlink targets (``.. _label:``, ``__
  url``), whose URLs appear on the links that use them; so are transitions (a
  horizontal rule, no text). Comments are excluded as ``comment``. ``raw`` and
  ``include`` (and ``csv-table`` with ``:file:``/``:url:``) are never run: their source is
  excluded as ``directive`` with a diagnostic. A directive docutils rejects stays a
  ``directive`` leaf with ``{"error": True}``; substitution definitions are ``directive``
  leaves ``{"name": "substitution", "argument": name}`` — except those of an image
  (``.. |PyPI| image:: https://…``), a URL and options shown where the reference stands:
  ``markup``. A paragraph of nothing but references to image substitutions (a README's
  ``|PyPI| |CI| |Coverage|`` row, a ``|Logo|``) shows no text of its own: ``badges``
  when every image is linked, ``markup`` otherwise. An ``.. image::`` with a
  ``:target:`` is a linked image, like Markdown's ``[![alt](src)](href)``: a README's
  build, version and licence shields, excluded as ``badges`` whatever its ``:alt:``.
* Links on the leaf containing them: ``{"links": (("text", "href"), ...)}`` for embedded
  URIs, bare URIs and named references whose target the document defines.
* System messages are not nodes: the source of a construct docutils rejects stays with
  the block before it (or is a ``paragraph`` after an excluded construct, so text is
  never excluded by accident); errors become diagnostics (offset and a short message).
* Prose at document or section level that docutils gave no node (rare) is a
  ``paragraph``, so sections own no units.
"""

from __future__ import annotations

from typing import Any

from fastrag.exceptions import NormalizationError
from fastrag.models import Document
from fastrag.normalization.formats._limits import check_positive, check_size, refined_identity
from fastrag.normalization.formats._rst_docutils import RstParser, release_doctree
from fastrag.normalization.formats._rst_tree import Draft, build_draft
from fastrag.normalization.model import (
    ExclusionColumns,
    NormalizedDocument,
    NormalizedNode,
    SourceSpan,
    UnitColumns,
)

__all__ = ["RstNormalizer"]

_DEFAULTS = {"max_depth": 32, "max_table_cells": 100_000}


def _docutils_version() -> str:
    """The installed docutils version, from package metadata, without importing it."""
    from importlib import metadata

    try:
        return metadata.version("docutils")
    except metadata.PackageNotFoundError:
        return "missing"


class RstNormalizer:
    """Reads reStructuredText ``Document.content`` into a validated ``NormalizedDocument``.

    Options (every non-default value is part of ``identity``):

    * ``max_characters`` (100,000,000): longer input raises ``NormalizationError``.
    * ``max_depth`` (32): blocks nested deeper (list in list, quote in quote, directive
      in directive …) are not parsed; their source is one ``paragraph`` leaf
      ``{"flattened": True}`` of the deepest container kept, with a diagnostic. docutils
      spends about ten Python frames per level, so 32 levels stay well inside Python's
      default recursion limit wherever the caller runs; 100 would not.
    * ``max_table_cells`` (100,000): cells in all tables of a document (docutils parses
      every cell as a small document, about 50 µs each). A table that would go past the
      budget is one ``table`` leaf ``{"flattened": True}`` with a diagnostic.

    The docutils version is part of ``identity``: its parse decides the tree.
    """

    # v2: section and heading titles are their readable text (roles and marks dropped);
    # a leading field list of Sphinx metadata fields is excluded as markup.
    # v3: meta, contents, sectnum, target-notes and toctree directives and images
    # without alt text are excluded as markup.
    # v4: autodoc's auto* directives too; literalinclude is refused like include.
    # v5: Sphinx quickstart's "Indices and tables" section is markup.
    # v6: transitions, image substitution definitions and paragraphs of image
    #     substitution references only (badge rows) are excluded.
    # v7: an excluded transition or image keeps the lines docutils rejected after it.
    # v8: an unknown directive whose only source is a file's path (``.. cmake-module::
    #     ../../Modules/FindBZip2.cmake``) is markup.
    # v9: the line of a build condition (``.. only:: html``, ``.. ifconfig::``) is markup,
    #     its argument no longer read as body text.
    # v10: an autodoc directive with a body of its own is a directive container.
    # v11: an image with a ``:target:`` (a linked image: a README's badge) is ``badges``.
    # v12: titles show text substitutions (``|ASN.1| type`` is "BitString type").
    # v13: a refused directive in a substitution definition (``.. |br| raw:: html``) is
    #      excluded whole; its source no longer runs into the paragraph before it.
    # v14: rubrics and titles where no section may stand are heading leaves.
    # v15: tables too wide for docutils to parse in reasonable time are kept as text.
    # v16: a line block of empty lines only (``|`` alone) is markup.
    identity = f"rst:docutils-{_docutils_version()}:v16"

    def __init__(
        self,
        *,
        max_characters: int = 100_000_000,
        max_depth: int = _DEFAULTS["max_depth"],
        max_table_cells: int = _DEFAULTS["max_table_cells"],
    ) -> None:
        check_positive(
            "RstNormalizer",
            {
                "max_characters": max_characters,
                "max_depth": max_depth,
                "max_table_cells": max_table_cells,
            },
        )
        self.max_characters = max_characters
        self._parser = RstParser(max_depth=max_depth, max_table_cells=max_table_cells)
        self.identity = refined_identity(
            type(self).identity,
            {"max_depth": max_depth, "max_table_cells": max_table_cells},
            _DEFAULTS,
        )

    def normalize(self, document: Document) -> NormalizedDocument:
        content = document.content
        check_size("RstNormalizer", document, self.max_characters)
        try:
            parsed = self._parser.parse(content)
        except RecursionError as error:
            raise NormalizationError(
                f"rst document {document.id!r} nests too deeply for Python's recursion "
                f"limit at max_depth={self._parser.max_depth}; lower "
                "RstNormalizer(max_depth=...) or call from a shallower stack"
            ) from error
        except NormalizationError:
            raise
        except Exception as error:
            raise NormalizationError(
                f"docutils failed on rst document {document.id!r} "
                f"({type(error).__name__}: {str(error)[:80]}); the document cannot be "
                "normalized as reStructuredText: fix the markup or declare it as text"
            ) from error
        try:
            draft = build_draft(content, parsed.document, parsed.notes)
        finally:
            release_doctree(parsed.document)
        return _assemble(document, draft)


def _assemble(document: Document, draft: Draft) -> NormalizedDocument:
    """Freeze the draft: ids by position, whitespace exclusions between owned ranges."""
    content = document.content
    prefix = document.id
    drafts = draft.nodes
    ids = [f"{prefix}:{node.kind}:{index}" for index, node in enumerate(drafts)]
    spans: list[SourceSpan] = []
    nodes: list[NormalizedNode] = []
    for index, node in enumerate(drafts):
        span = SourceSpan(node.start, node.end)
        spans.append(span)
        attributes: dict[str, Any] = node.attributes
        nodes.append(
            NormalizedNode(
                ids[index],
                node.kind,
                node.text,
                (span,) if node.end > node.start else (),
                ids[node.parent] if node.parent >= 0 else None,
                tuple([ids[child] for child in node.children]),
                node.level,
                attributes,
            )
        )
    units = UnitColumns(f"{prefix}:u")
    excluded = ExclusionColumns()
    position = 0
    owned = draft.owned
    if any(owned[i][0] < owned[i - 1][1] for i in range(1, len(owned))):
        raise NormalizationError(
            f"rst document {document.id!r}: internal error, overlapping source ranges; "
            "please report it with the document"
        )
    for start, end, owner, reason in owned:
        if start > position:
            _whitespace(excluded, content, position, start, document.id)
        if owner >= 0:
            units.add(start, end, ids[owner])
        else:
            excluded.add(start, end, reason)
        position = end
    if position < len(content):
        _whitespace(excluded, content, position, len(content), document.id)
    diagnostics = [f"offset {offset}: {message}" for offset, message in draft.notes]
    result = NormalizedDocument(
        document,
        "rst",
        tuple(nodes),
        units.build(),
        excluded.build(),
        tuple(diagnostics),
    )
    return result.validate()


def _whitespace(
    excluded: ExclusionColumns,
    content: str,
    start: int,
    end: int,
    document_id: str,
) -> None:
    """Exclude a gap between owned ranges; by construction it holds only whitespace."""
    if not content[start:end].isspace():
        raise NormalizationError(
            f"rst document {document_id!r}: internal error, unowned text at offset "
            f"{start}; please report it with the document"
        )
    excluded.add(start, end, "whitespace")
