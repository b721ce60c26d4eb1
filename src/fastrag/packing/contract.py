"""The structural chunk contract: metadata keys the engine writes and everyone else reads.

This module is the one place both the packing engine and the independent validator agree
on. It holds no packing logic. Every value is JSON-compatible and immutable (tuples, not
lists) so persisted chunks replay equal to fresh ones. The engine hands each chunk's
metadata out as a ``ChunkMetadata`` (``fastrag.packing.chunk_metadata``): a read-only
mapping with exactly these keys, in this order, whose interval values are stored as
arrays and built as tuples when read.

Metadata of one structural chunk (``content`` is the chunk's display text):

``structure_version``
    ``STRUCTURE_VERSION``; its presence marks a structural chunk for
    ``build_embedding_text`` (generic chunks without it embed their content only).
``document_id``
    id of the normalized parent ``Document``.
``section_ids``
    every section node whose blocks this chunk contains, in source order (merged sibling
    sections list each); ``()`` for content before the first heading.
``heading_ids`` / ``heading_path``
    the heading path of the chunk's first block, outermost first: heading node ids and
    their titles (equal length), each as ``path_title`` gives it.
``displayed_heading_ids``
    heading ids whose heading line is part of ``content`` itself; the rest of the path is
    prepended to the embedding text (by id, so duplicate titles and heading-like lines in
    code are never confused).
``embed_heading_path``
    whether the path is prepended at all (``include_heading_path_in_embedding``).
``char_start`` / ``char_end``
    first and last retained source offset of the chunk's primary content (half-open).
``retained_intervals``
    the source intervals this chunk newly retains: ``((start, end), …)``, sorted,
    disjoint, adjacent runs coalesced. Over all chunks of a document these partition the
    union of the document's coverage units exactly once. Overlap never appears here.
``serialization_map``
    ``((display_start, display_end, source_start, source_end, kind), …)`` covering
    ``content`` from 0 to its end without gaps, in display order. ``kind`` is one of
    ``MAP_KINDS``: ``"source"`` (verbatim: display slice == source slice), ``"rendered"``
    (display renders that source range differently, e.g. a decoded HTML entity),
    ``"separator"`` (inserted between blocks; source ``(-1, -1)``), ``"context"`` (repeated
    context such as a table header; source is where it was copied from), ``"overlap"``
    (trailing prose of the previous chunk; verbatim from its source).
    A ``"source"`` run may span the whitespace the normalizer excluded between the units
    it shows, copied as it is in the source: that is what lets a Markdown/RST/text chunk
    be exactly ``source[char_start:char_end]`` with a single coalesced run. Everything
    else a ``"source"`` run shows is retained by this chunk; ``"context"`` and
    ``"overlap"`` runs show only retained source (gaps inside them are separators).
``repeated_context``
    ``((display_start, display_end, kind), …)`` with kinds ``"table_header"``,
    ``"list_parent"``, ``"code_fence"``, ``"heading"``.
``overlap_intervals``
    source intervals repeated as overlap (never counted as coverage).
``embedding_token_count``
    ``tokenizer.count(build_embedding_text(content, metadata))``, exactly.
``overflow``
    True only under ``preserve_and_flag`` when the chunk exceeds ``max_tokens``.
``atomic_structure_loss``
    True when an indivisible unit (a table row, a code line) had to be split.
``chunk_kind``
    ``"section"`` (one whole section), ``"merged"`` (small sibling sections together),
    ``"split"`` (part of an oversized section), or ``"empty"``.
``structure_metadata``
    lightweight projection ``{"node_ids": (…), "kinds": (…)}`` of the block nodes the
    chunk contains; the complete node metadata stays on the normalized parent.
``engine_identity``
    hash of the engine configuration, tokenizer identity and normalizer identity; part of
    every structural chunk id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "CONTEXT_KINDS",
    "MAP_KINDS",
    "PATH_TITLE_MAX",
    "STRUCTURE_VERSION",
    "build_embedding_text",
    "embedding_prefix",
    "path_title",
]

STRUCTURE_VERSION: Final = "fastrag-structure:v1"

PATH_TITLE_MAX: Final = 300
"""Longest heading title a heading path carries whole, in code points."""

_ELLIPSIS: Final = "…"


def path_title(text: str) -> str:
    """A heading's title as heading paths carry it: whole up to ``PATH_TITLE_MAX`` code
    points; a longer one cut at the last space before the limit (within its last fifth),
    else at the limit, and ended with "…".

    The path is prepended to the embedding text of every chunk under the heading, as
    mandatory context. A "heading" thousands of words long is a defect of the source — a
    paragraph that an unspaced ``---`` turned into a setext heading, an ``<h1>`` never
    closed — and would make every chunk under it impossible to fit. The heading's own
    text stays whole where the content shows it.
    """
    if len(text) <= PATH_TITLE_MAX:
        return text
    limit = PATH_TITLE_MAX - len(_ELLIPSIS)
    cut = text.rfind(" ", limit * 4 // 5, limit + 1)
    return text[: cut if cut > 0 else limit].rstrip() + _ELLIPSIS


MAP_KINDS: Final = frozenset({"source", "rendered", "separator", "context", "overlap"})
CONTEXT_KINDS: Final = frozenset({"table_header", "list_parent", "code_fence", "heading"})

# Between the heading path and the content: a blank line, as Markdown separates blocks.
_PATH_SEPARATOR: Final = " > "
_PREFIX_END: Final = "\n\n"


def embedding_prefix(metadata: Mapping[str, Any]) -> str:
    """The heading-path text prepended to a structural chunk's content ("" if none)."""
    if metadata.get("structure_version") != STRUCTURE_VERSION:
        return ""
    if not metadata.get("embed_heading_path", True):
        return ""
    heading_ids = metadata.get("heading_ids", ())
    titles = metadata.get("heading_path", ())
    displayed = set(metadata.get("displayed_heading_ids", ()))
    shown = [
        " ".join(str(title).split())
        for heading_id, title in zip(heading_ids, titles, strict=True)
        if heading_id not in displayed
    ]
    shown = [title for title in shown if title]
    if not shown:
        return ""
    return _PATH_SEPARATOR.join(shown) + _PREFIX_END


def build_embedding_text(content: str, metadata: Mapping[str, Any]) -> str:
    """The exact, versioned text that is embedded for a chunk.

    Structural chunks get the titles of their heading path that the content does not
    already display, joined by ``" > "``, then a blank line, then the content. Any other
    chunk (no ``structure_version`` marker) embeds its content unchanged, so legacy chunks
    keep their previous embedding input. Budgets are always checked on this whole string.
    """
    return embedding_prefix(metadata) + content
