"""The normalized tree: immutable values every format adapter produces and the packer reads.

Two structures describe one parsed string (``Document.content``):

* an ordered **tree** of ``NormalizedNode`` values (document → sections → blocks → rows,
  items …). Node spans may overlap or be noncontiguous: a section spans its heading and
  its whole body, a table spans all its rows.
* an independent **coverage partition**: every code point of the source is owned by
  exactly one ``CoverageUnit`` (retained, attributed to one node) or one ``Exclusion``
  (dropped, with a reason). Ownership never overlaps, whatever the tree does.

All offsets are half-open Unicode code-point offsets into ``Document.content``.

Conventions of the built-in adapters (custom adapters may do less):

* ``nodes[0]`` is the root, kind ``"document"``; parents precede their children.
* A ``"section"`` node is opened by a ``"heading"`` node (its first child) and runs until
  the next heading of the same or a higher level; ``level`` is the heading level.
* Units are owned by leaves (paragraphs, code, table rows, tight list items, headings,
  raw HTML blocks). Containers (lists, loose list items, block quotes, directives,
  footnotes) own only their own syntax — a ``-`` marker, a ``>``, a directive's header
  lines — and have ``text == ""``; their prose lives in leaf children. A Markdown table's
  header row owns the delimiter row too, so repeating the header repeats valid syntax.
* ``text`` is the node's readable text. For text, Markdown and reStructuredText leaves it
  is the exact source slice; for HTML it is a readable serialization, and
  ``serialization`` maps its offsets back to source offsets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from fastrag.exceptions import NormalizationError
from fastrag.models import Document

__all__ = [
    "CoverageUnit",
    "Exclusion",
    "MapSegment",
    "NormalizedDocument",
    "NormalizedNode",
    "SourceSpan",
]

_NO_ATTRIBUTES: Mapping[str, Any] = MappingProxyType({})


def _slot_setters(cls: type, *names: str) -> tuple[Callable[[object, object], None], ...]:
    """Each named slot's own setter, for the hand-written constructors below.

    They write a field of a frozen value during construction, as ``object.__setattr__``
    does in dataclass's own ``__init__``, but through the slot's descriptor: that skips
    the attribute lookup ``object.__setattr__`` repeats on every call. Constructors run
    up to a third faster, and adapters build hundreds of thousands of values per corpus.
    """
    return tuple(vars(cls)[name].__set__ for name in names)


@dataclass(frozen=True, slots=True, order=True)
class SourceSpan:
    """A half-open range ``[start, end)`` of code points in the parent's content."""

    start: int
    end: int

    def __init__(self, start: int, end: int) -> None:
        # Hand-written rather than generated + __post_init__: adapters build hundreds of
        # thousands of spans per corpus, and validating the arguments before one write
        # per field costs about a third less. Same checks, same messages.
        if type(start) is not int or type(end) is not int:
            raise NormalizationError(
                f"SourceSpan offsets must be ints (got start={start!r}, end={end!r})"
            )
        if start < 0 or end < start:
            raise NormalizationError(
                f"SourceSpan must satisfy 0 <= start <= end (got start={start}, end={end})"
            )
        _span_start(self, start)
        _span_end(self, end)

    def __len__(self) -> int:
        return self.end - self.start

    def slice(self, content: str) -> str:
        """The source text this span covers."""
        return content[self.start : self.end]


_span_start, _span_end = _slot_setters(SourceSpan, "start", "end")


@dataclass(frozen=True, slots=True)
class MapSegment:
    """One run of a serialization map from a node's display text to source offsets.

    Display ``[display_start, display_end)`` renders source ``[source_start, source_end)``.
    Equal lengths mean a verbatim copy (offsets map one to one); unequal lengths mean the
    run was rewritten (an entity decoded, whitespace collapsed) and only its ends map.
    """

    display_start: int
    display_end: int
    source_start: int
    source_end: int

    def __init__(
        self, display_start: int, display_end: int, source_start: int, source_end: int
    ) -> None:
        # Hand-written (see SourceSpan.__init__): the HTML adapter builds one segment per
        # run of text between inline tags, a quarter of a million per corpus. Same check,
        # same message, done on the arguments before the writes.
        if not (0 <= display_start <= display_end) or not (0 <= source_start <= source_end):
            raise NormalizationError(
                "MapSegment ranges must be ordered and nonnegative (got display "
                f"[{display_start}, {display_end}), source "
                f"[{source_start}, {source_end}))"
            )
        _segment_display_start(self, display_start)
        _segment_display_end(self, display_end)
        _segment_source_start(self, source_start)
        _segment_source_end(self, source_end)

    @property
    def verbatim(self) -> bool:
        return self.display_end - self.display_start == self.source_end - self.source_start


(
    _segment_display_start,
    _segment_display_end,
    _segment_source_start,
    _segment_source_end,
) = _slot_setters(MapSegment, "display_start", "display_end", "source_start", "source_end")


@dataclass(frozen=True, slots=True)
class NormalizedNode:
    """One element of the tree: a section, heading, paragraph, code block, row, item …

    ``attributes`` holds kind-specific facts as immutable values: ``language`` of code,
    ``label`` of a list item (``"-"``, ``"3."``), ``header`` of a table row, ``align`` of
    a table, ``href`` of links (a tuple of targets), ``admonition`` names and the like.
    """

    node_id: str
    kind: str
    text: str
    spans: tuple[SourceSpan, ...]
    parent_id: str | None = None
    children: tuple[str, ...] = ()
    level: int | None = None
    attributes: Mapping[str, Any] = field(default_factory=lambda: _NO_ATTRIBUTES)
    serialization: tuple[MapSegment, ...] = ()

    def __init__(
        self,
        node_id: str,
        kind: str,
        text: str,
        spans: tuple[SourceSpan, ...],
        parent_id: str | None = None,
        children: tuple[str, ...] = (),
        level: int | None = None,
        attributes: Mapping[str, Any] = _NO_ATTRIBUTES,
        serialization: tuple[MapSegment, ...] = (),
    ) -> None:
        # Hand-written (see SourceSpan.__init__): one node per block, so the common case
        # (exact tuples, an already read-only mapping) converts nothing and writes each
        # field once. Sequences become tuples, mappings read-only copies, as before.
        if not isinstance(node_id, str) or not node_id:
            raise NormalizationError(f"node_id must be a nonempty str (got {node_id!r})")
        if type(spans) is not tuple:
            spans = tuple(spans)
        if type(children) is not tuple:
            children = tuple(children)
        if not isinstance(attributes, MappingProxyType):
            attributes = MappingProxyType(dict(attributes))
        _node_node_id(self, node_id)
        _node_kind(self, kind)
        _node_text(self, text)
        _node_spans(self, spans)
        _node_parent_id(self, parent_id)
        _node_children(self, children)
        _node_level(self, level)
        _node_attributes(self, attributes)
        _node_serialization(self, serialization)
        previous_end = -1
        for span in spans:
            if type(span) is not SourceSpan and not isinstance(span, SourceSpan):
                raise NormalizationError(
                    f"node {node_id!r}: spans must be SourceSpan values (got {span!r})"
                )
            if span.start < previous_end:
                raise NormalizationError(
                    f"node {node_id!r}: spans must be ordered and disjoint "
                    f"(span {span.start}-{span.end} starts before {previous_end})"
                )
            previous_end = span.end

    @property
    def start(self) -> int:
        """Where the node's first span starts (0 for a node without spans)."""
        return self.spans[0].start if self.spans else 0

    @property
    def end(self) -> int:
        """Where the node's last span ends (0 for a node without spans)."""
        return self.spans[-1].end if self.spans else 0


(
    _node_node_id,
    _node_kind,
    _node_text,
    _node_spans,
    _node_parent_id,
    _node_children,
    _node_level,
    _node_attributes,
    _node_serialization,
) = _slot_setters(
    NormalizedNode,
    "node_id",
    "kind",
    "text",
    "spans",
    "parent_id",
    "children",
    "level",
    "attributes",
    "serialization",
)


@dataclass(frozen=True, slots=True)
class CoverageUnit:
    """A retained, nonempty source range owned by exactly one node."""

    unit_id: str
    node_id: str
    span: SourceSpan

    def __init__(self, unit_id: str, node_id: str, span: SourceSpan) -> None:
        # Hand-written for speed, see SourceSpan.__init__.
        if (type(span) is not SourceSpan and not isinstance(span, SourceSpan)) or (
            span.start == span.end
        ):
            raise NormalizationError(
                f"unit {unit_id!r}: span must be a nonempty SourceSpan (got {span!r})"
            )
        _unit_unit_id(self, unit_id)
        _unit_node_id(self, node_id)
        _unit_span(self, span)


_unit_unit_id, _unit_node_id, _unit_span = _slot_setters(CoverageUnit, "unit_id", "node_id", "span")


@dataclass(frozen=True, slots=True)
class Exclusion:
    """A nonempty source range deliberately not retained, and why.

    Reasons used by the built-in adapters: ``whitespace`` (separators between blocks),
    ``markup`` (tags and syntax with no readable text), ``script``, ``style``,
    ``template``, ``noscript``, ``comment``, ``boilerplate`` (page chrome),
    ``ui_control`` (the text of an HTML ``<button>``), ``front_matter`` (kept as document
    metadata instead), ``system_message``, ``directive`` (content a hardened parser
    refuses to run, such as RST ``raw``).
    """

    span: SourceSpan
    reason: str

    def __init__(self, span: SourceSpan, reason: str) -> None:
        # Hand-written for speed, see SourceSpan.__init__.
        if (type(span) is not SourceSpan and not isinstance(span, SourceSpan)) or (
            span.start == span.end
        ):
            raise NormalizationError(
                f"exclusion ({reason!r}): span must be a nonempty SourceSpan (got {span!r})"
            )
        if (type(reason) is not str and not isinstance(reason, str)) or not reason:
            raise NormalizationError(f"exclusion reason must be a nonempty str ({span})")
        _exclusion_span(self, span)
        _exclusion_reason(self, reason)


_exclusion_span, _exclusion_reason = _slot_setters(Exclusion, "span", "reason")


@dataclass(frozen=True, slots=True)
class NormalizedDocument:
    """A parsed document read into a tree plus a coverage partition of its content."""

    document: Document
    format: str
    nodes: tuple[NormalizedNode, ...]
    units: tuple[CoverageUnit, ...]
    exclusions: tuple[Exclusion, ...] = ()
    diagnostics: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=lambda: _NO_ATTRIBUTES)
    _index: Mapping[str, int] = field(init=False, repr=False, compare=False)
    _validated: bool = field(init=False, repr=False, compare=False, default=False)

    def __post_init__(self) -> None:
        for name in ("nodes", "units", "exclusions", "diagnostics"):
            value = getattr(self, name)
            if not isinstance(value, tuple):
                object.__setattr__(self, name, tuple(value))
        if not isinstance(self.metadata, MappingProxyType):
            object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))
        index = {node.node_id: position for position, node in enumerate(self.nodes)}
        object.__setattr__(self, "_index", MappingProxyType(index))

    @property
    def content(self) -> str:
        return self.document.content

    @property
    def root(self) -> NormalizedNode:
        if not self.nodes:
            raise NormalizationError(f"document {self.document.id!r} has no nodes")
        return self.nodes[0]

    @property
    def node_index(self) -> Mapping[str, int]:
        """Each node id's position in ``nodes`` (read-only): a lookup without a call."""
        return self._index

    def node(self, node_id: str) -> NormalizedNode:
        """The node with this id; ``KeyError`` naming it when there is none."""
        try:
            return self.nodes[self._index[node_id]]
        except KeyError:
            raise KeyError(f"no node {node_id!r} in document {self.document.id!r}") from None

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._index

    def children(self, node: NormalizedNode) -> tuple[NormalizedNode, ...]:
        return tuple(self.node(child) for child in node.children)

    def ancestors(self, node: NormalizedNode) -> tuple[NormalizedNode, ...]:
        """Ancestors from the root down to the node's parent."""
        chain: list[NormalizedNode] = []
        current = node
        while current.parent_id is not None:
            current = self.node(current.parent_id)
            chain.append(current)
        chain.reverse()
        return tuple(chain)

    @property
    def retained_characters(self) -> int:
        return sum(len(unit.span) for unit in self.units)

    @property
    def excluded_characters(self) -> int:
        return sum(len(exclusion.span) for exclusion in self.exclusions)

    def validate(self) -> NormalizedDocument:
        """Check every structural contract; raise ``NormalizationError`` naming the fault.

        Linear in the number of nodes, units and exclusions. Returns ``self`` so adapters
        can ``return result.validate()``. The values are immutable, so a tree that passed
        once is remembered as valid and a second call costs nothing.
        """
        if self._validated:
            return self
        content_length = len(self.document.content)
        where = f"normalized document {self.document.id!r} ({self.format})"
        if len(self._index) != len(self.nodes):
            seen: set[str] = set()
            for node in self.nodes:
                if node.node_id in seen:
                    raise NormalizationError(f"{where}: duplicate node id {node.node_id!r}")
                seen.add(node.node_id)
        _check_lineage(self.nodes, self._index, where)
        for node in self.nodes:
            if node.spans and node.spans[-1].end > content_length:
                raise NormalizationError(
                    f"{where}: node {node.node_id!r} span ends at {node.spans[-1].end}, "
                    f"past the content length {content_length}"
                )
        _check_partition(self.units, self.exclusions, self._index, content_length, where)
        object.__setattr__(self, "_validated", True)
        return self


def _check_lineage(nodes: Sequence[NormalizedNode], index: Mapping[str, int], where: str) -> None:
    # Linear: every listed child must name its lister as parent, and the listings must be
    # exactly the non-root nodes, once each; then every parent lists all of its children
    # without a per-parent membership scan (quadratic for a root with many paragraphs).
    listed: set[str] = set()
    listings = 0
    for position, node in enumerate(nodes):
        if node.parent_id is None:
            if position != 0:
                raise NormalizationError(
                    f"{where}: node {node.node_id!r} has no parent but is not the root "
                    "(only nodes[0] may be parentless)"
                )
        else:
            parent_position = index.get(node.parent_id)
            if parent_position is None:
                raise NormalizationError(
                    f"{where}: node {node.node_id!r} names a missing parent {node.parent_id!r}"
                )
            if parent_position >= position:
                raise NormalizationError(
                    f"{where}: parent {node.parent_id!r} must come before its child "
                    f"{node.node_id!r} in nodes"
                )
        for child_id in node.children:
            child_position = index.get(child_id)
            if child_position is None:
                raise NormalizationError(
                    f"{where}: node {node.node_id!r} lists a missing child {child_id!r}"
                )
            if nodes[child_position].parent_id != node.node_id:
                raise NormalizationError(
                    f"{where}: child {child_id!r} of {node.node_id!r} names parent "
                    f"{nodes[child_position].parent_id!r}"
                )
            listed.add(child_id)
        listings += len(node.children)
    if listings != len(listed):
        raise NormalizationError(f"{where}: a node lists the same child more than once")
    if nodes and len(listed) != len(nodes) - 1:
        unlisted = next(node.node_id for node in nodes[1:] if node.node_id not in listed)
        parent = nodes[index[unlisted]].parent_id
        raise NormalizationError(f"{where}: parent {parent!r} does not list child {unlisted!r}")


def _check_partition(
    units: Sequence[CoverageUnit],
    exclusions: Sequence[Exclusion],
    index: Mapping[str, int],
    content_length: int,
    where: str,
) -> None:
    """Units and exclusions, each already in source order, must tile [0, length) once."""
    unit_ids: set[str] = set()
    previous_start = -1
    for unit in units:
        if unit.unit_id in unit_ids:
            raise NormalizationError(f"{where}: duplicate unit id {unit.unit_id!r}")
        unit_ids.add(unit.unit_id)
        if unit.node_id not in index:
            raise NormalizationError(
                f"{where}: unit {unit.unit_id!r} names a missing node {unit.node_id!r}"
            )
        if unit.span.start <= previous_start:
            raise NormalizationError(
                f"{where}: units must be in source order (unit {unit.unit_id!r} at "
                f"{unit.span.start})"
            )
        previous_start = unit.span.start
    previous_start = -1
    for exclusion in exclusions:
        if exclusion.span.start <= previous_start:
            raise NormalizationError(
                f"{where}: exclusions must be in source order (at {exclusion.span.start})"
            )
        previous_start = exclusion.span.start
    position = 0
    unit_position = exclusion_position = 0
    while unit_position < len(units) or exclusion_position < len(exclusions):
        unit_span = units[unit_position].span if unit_position < len(units) else None
        exclusion_span = (
            exclusions[exclusion_position].span if exclusion_position < len(exclusions) else None
        )
        if unit_span is not None and unit_span.start == position:
            position = unit_span.end
            unit_position += 1
        elif exclusion_span is not None and exclusion_span.start == position:
            position = exclusion_span.end
            exclusion_position += 1
        else:
            starts = [s.start for s in (unit_span, exclusion_span) if s is not None]
            problem = "overlaps" if min(starts) < position else "leaves a gap at"
            raise NormalizationError(
                f"{where}: coverage {problem} offset {position}: units and exclusions must "
                "partition the content exactly once"
            )
    if position != content_length:
        raise NormalizationError(
            f"{where}: coverage ends at {position} but the content has {content_length} "
            "characters; every character must be owned by one unit or one exclusion"
        )
