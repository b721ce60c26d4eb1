"""The normalized tree: immutable values every format adapter produces and the packer reads.

Two structures describe one parsed string (``Document.content``):

* an ordered **tree** of ``NormalizedNode`` values (document → sections → blocks → rows,
  items …). Node spans may overlap or be noncontiguous: a section spans its heading and
  its whole body, a table spans all its rows.
* an independent **coverage partition**: every code point of the source is owned by
  exactly one ``CoverageUnit`` (retained, attributed to one node) or one ``Exclusion``
  (dropped, with a reason). Ownership never overlaps, whatever the tree does.

All offsets are half-open Unicode code-point offsets into ``Document.content``.

Storage: ``nodes`` is a tuple of ``NormalizedNode`` values, or ``Nodes`` — the same
nodes kept as columns and built on access (the Markdown, HTML and text adapters; a
tree of objects was most of a document's memory). ``NormalizedDocument.lineage`` reads
kinds, parents and children by position for either, without building nodes.

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

import operator
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, compress, pairwise, repeat, starmap
from types import MappingProxyType
from typing import Any, Final, NoReturn, Protocol, TypeVar, overload

from fastrag.exceptions import NormalizationError
from fastrag.models import Document
from fastrag.normalization._attributes import AttributePacker, PackedAttributes, unpacked

__all__ = [
    "CoverageUnit",
    "Exclusion",
    "ExclusionColumns",
    "Exclusions",
    "Lineage",
    "MapSegment",
    "NodeIds",
    "Nodes",
    "NormalizedDocument",
    "NormalizedNode",
    "PackedAttributes",
    "SourceSpan",
    "UnitColumns",
    "Units",
]

_NO_ATTRIBUTES: Mapping[str, Any] = MappingProxyType({})
_Item = TypeVar("_Item")


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
    refuses to run, such as RST ``raw``), ``redirect`` (an HTML page that sends the
    reader elsewhere at once).
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


class _BuiltOnAccess(Sequence[_Item]):
    """Values kept as columns and built on access (``_item``): what ``Nodes``,
    ``NodeIds`` and the span columns share — equality with any sequence of the same
    values, hashed like a tuple of them (values are built: hashed rarely, if ever)."""

    __slots__ = ()

    def _item(self, position: int) -> _Item:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> _Item: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[_Item]: ...

    def __getitem__(self, index: int | slice) -> _Item | Sequence[_Item]:
        if isinstance(index, slice):
            return tuple(map(self._item, range(len(self))[index]))
        return self._item(range(len(self))[index])

    def __iter__(self) -> Iterator[_Item]:
        return map(self._item, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(other) == len(self) and all(map(operator.eq, self, other))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"


class _SpanColumns(_BuiltOnAccess[_Item]):
    """Ranges kept as two offset arrays, with what ``Exclusions`` and ``Units`` share:
    the checks their value classes make (over whole lists), read-only offset views, and
    equality with any sequence of the same values (hashed like a tuple of them)."""

    __slots__ = ("_ends", "_starts")

    _starts: array[int]
    _ends: array[int]

    def _set_offsets(
        self, starts: Sequence[int], ends: Sequence[int], noun: str, name: Callable[[int], str]
    ) -> None:
        """Store the offsets; ``name(i)`` names range ``i`` in an error ("unit 'd:u3'")."""
        try:
            self._starts = array("q", starts)
            self._ends = array("q", ends)
        except (TypeError, OverflowError) as error:
            raise NormalizationError(f"{noun} offsets must be ints ({error})") from None
        if not all(map(int.__lt__, self._starts, self._ends)) or (
            self._starts and min(self._starts) < 0
        ):
            bad = next(
                index
                for index, (start, end) in enumerate(zip(self._starts, self._ends, strict=True))
                if not 0 <= start < end
            )
            raise NormalizationError(
                f"{name(bad)}: span must be a nonempty range with "
                f"0 <= start < end (got start={self._starts[bad]}, end={self._ends[bad]})"
            )

    @property
    def starts(self) -> memoryview:
        """Where each range starts (read-only)."""
        return memoryview(self._starts).toreadonly()

    @property
    def ends(self) -> memoryview:
        """Where each range ends (read-only)."""
        return memoryview(self._ends).toreadonly()

    def _columns(self) -> tuple[object, ...]:
        """What equal values of the same class have equal (offsets first)."""
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            return self._columns() == other._columns()
        return super().__eq__(other)

    __hash__ = _BuiltOnAccess.__hash__  # defining __eq__ would unset it


class Exclusions(_SpanColumns[Exclusion]):
    """A document's exclusions in source order, kept as offset arrays.

    A document has an exclusion for nearly every gap between blocks and every run of
    syntax: about 80,000 for 10 MB of Markdown. As ``Exclusion`` objects (each with its
    ``SourceSpan`` and, past 256, two int objects) they were a third of the tree's
    tracked objects, 0.7x the input in memory (the 10 MB Markdown tree: 7.29x -> 6.58x),
    and work for every pass of the cyclic collector, while the packer never reads them.
    Here they cost 16 bytes and a shared reason string each. Items are built on
    access: ``exclusions[i]`` and iteration give ``Exclusion`` values, equal (not
    identical) each time; readers that only need offsets take ``starts``, ``ends`` and
    ``reasons`` instead.

    Compares equal to any sequence of the same ``Exclusion`` values (a tuple included).
    """

    __slots__ = ("_reasons",)

    _reasons: tuple[str, ...]

    def __init__(self, exclusions: Iterable[Exclusion] = ()) -> None:
        starts: list[int] = []
        ends: list[int] = []
        reasons: list[str] = []
        for exclusion in exclusions:
            if not isinstance(exclusion, Exclusion):
                raise NormalizationError(f"exclusions must be Exclusion values (got {exclusion!r})")
            starts.append(exclusion.span.start)
            ends.append(exclusion.span.end)
            reasons.append(exclusion.reason)
        self._set(starts, ends, reasons)

    @classmethod
    def from_offsets(
        cls, starts: Sequence[int], ends: Sequence[int], reasons: Sequence[str]
    ) -> Exclusions:
        """Exclusion ``i`` is ``[starts[i], ends[i])``, excluded for ``reasons[i]``.

        The checks ``Exclusion`` makes (nonempty, nonnegative ranges and nonempty reason
        strings), made over whole lists: the adapters build tens of thousands at once.
        """
        if not len(starts) == len(ends) == len(reasons):
            raise NormalizationError(
                f"exclusions need as many ends and reasons as starts (got {len(starts)} "
                f"starts, {len(ends)} ends, {len(reasons)} reasons)"
            )
        made = cls.__new__(cls)
        made._set(starts, ends, reasons)
        return made

    @classmethod
    def of(cls, exclusions: Iterable[Exclusion]) -> Exclusions:
        """``exclusions`` itself if it is an ``Exclusions``, else its values as one."""
        return exclusions if isinstance(exclusions, Exclusions) else cls(exclusions)

    def _set(self, starts: Sequence[int], ends: Sequence[int], reasons: Sequence[str]) -> None:
        self._set_offsets(starts, ends, "exclusion", lambda bad: f"exclusion ({reasons[bad]!r})")
        self._reasons = tuple(reasons)
        # Type first (a set of types, built in C), then emptiness among few distinct strs.
        if not set(map(type, self._reasons)) <= {str} or "" in set(self._reasons):
            bad_reason = next(r for r in self._reasons if type(r) is not str or not r)
            raise NormalizationError(
                f"exclusion reason must be a nonempty str (got {bad_reason!r})"
            )

    @property
    def reasons(self) -> tuple[str, ...]:
        return self._reasons

    def __len__(self) -> int:
        return len(self._reasons)

    @overload
    def __getitem__(self, index: int) -> Exclusion: ...

    @overload
    def __getitem__(self, index: slice) -> Exclusions: ...

    def __getitem__(self, index: int | slice) -> Exclusion | Exclusions:
        if isinstance(index, slice):
            return Exclusions.from_offsets(
                self._starts[index], self._ends[index], self._reasons[index]
            )
        return Exclusion(SourceSpan(self._starts[index], self._ends[index]), self._reasons[index])

    def __iter__(self) -> Iterator[Exclusion]:
        return map(Exclusion, map(SourceSpan, self._starts, self._ends), self._reasons)

    def _columns(self) -> tuple[object, ...]:
        return (self._starts, self._ends, self._reasons)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Exclusions.from_offsets, (self._starts, self._ends, self._reasons))


class ExclusionColumns:
    """Exclusions recorded one at a time, in source order, as ``Exclusions`` columns:
    an adapter's partition loop appends without building a value per exclusion."""

    __slots__ = ("ends", "reasons", "starts")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.reasons: list[str] = []

    def add(self, start: int, end: int, reason: str) -> None:
        self.starts.append(start)
        self.ends.append(end)
        self.reasons.append(reason)

    def build(self) -> Exclusions:
        return Exclusions.from_offsets(self.starts, self.ends, self.reasons)


class Units(_SpanColumns[CoverageUnit]):
    """A document's coverage units in source order, kept as columns.

    A document has a unit for nearly every block: about 66,000 for 10 MB of Markdown. As
    ``CoverageUnit`` objects, each with its own id string, they were 0.84x the input in
    memory, and work for every pass of the cyclic collector; the packer and validators
    read only their offsets and owners. Here a unit costs two offsets and a reference to
    its owner's id string (24 bytes). Ids an adapter numbers (``from_offsets``: unit ``i``
    is ``f"{id_prefix}{i}"``) are not stored at all. Items are built on access:
    ``units[i]`` and iteration give ``CoverageUnit`` values, equal (not identical) each
    time; readers that only need offsets and owners take ``starts``, ``ends`` and
    ``node_ids`` instead.

    Compares equal to any sequence of the same ``CoverageUnit`` values (a tuple included).
    """

    __slots__ = ("_ids", "_node_ids", "_prefix")

    _node_ids: Sequence[str]
    """A tuple, or ``NodeIds`` (owners by position, ids built on access)."""
    _ids: tuple[str, ...] | None
    """The ids, when they are not ``_prefix`` plus the position."""
    _prefix: str

    def __init__(self, units: Iterable[CoverageUnit] = ()) -> None:
        starts: list[int] = []
        ends: list[int] = []
        node_ids: list[str] = []
        ids: list[str] = []
        for unit in units:
            if not isinstance(unit, CoverageUnit):
                raise NormalizationError(f"units must be CoverageUnit values (got {unit!r})")
            starts.append(unit.span.start)
            ends.append(unit.span.end)
            node_ids.append(unit.node_id)
            ids.append(unit.unit_id)
        self._set(starts, ends, node_ids, tuple(ids), "")

    @classmethod
    def from_offsets(
        cls,
        starts: Sequence[int],
        ends: Sequence[int],
        node_ids: Sequence[str],
        *,
        id_prefix: str,
    ) -> Units:
        """Unit ``i`` is ``[starts[i], ends[i])``, owned by ``node_ids[i]``, with the id
        ``f"{id_prefix}{i}"``.

        The checks ``CoverageUnit`` makes (nonempty, nonnegative ranges), made over whole
        lists: the adapters build tens of thousands at once.
        """
        if not isinstance(id_prefix, str):
            raise NormalizationError(f"unit id_prefix must be a str (got {id_prefix!r})")
        made = cls.__new__(cls)
        made._set(starts, ends, node_ids, None, id_prefix)
        return made

    @classmethod
    def of(cls, units: Iterable[CoverageUnit]) -> Units:
        """``units`` itself if it is a ``Units``, else its values as one."""
        return units if isinstance(units, Units) else cls(units)

    def _set(
        self,
        starts: Sequence[int],
        ends: Sequence[int],
        node_ids: Sequence[str],
        ids: tuple[str, ...] | None,
        prefix: str,
    ) -> None:
        if not len(starts) == len(ends) == len(node_ids):
            raise NormalizationError(
                f"units need as many ends and node ids as starts (got {len(starts)} "
                f"starts, {len(ends)} ends, {len(node_ids)} node ids)"
            )
        self._node_ids = node_ids if isinstance(node_ids, NodeIds) else tuple(node_ids)
        self._ids = ids
        self._prefix = prefix
        self._set_offsets(starts, ends, "unit", lambda bad: f"unit {self.unit_id(bad)!r}")
        if not isinstance(self._node_ids, NodeIds) and not set(map(type, self._node_ids)) <= {str}:
            bad = next(i for i, node_id in enumerate(self._node_ids) if type(node_id) is not str)
            raise NormalizationError(
                f"unit {self.unit_id(bad)!r}: node_id must be a str (got {self._node_ids[bad]!r})"
            )

    @property
    def node_ids(self) -> Sequence[str]:
        """The id of the node owning each unit (a tuple, or ``NodeIds``: a sequence of
        the same strings, built on access)."""
        return self._node_ids

    @property
    def ids(self) -> tuple[str, ...]:
        """Every unit's id, in order (built on each call when the adapter numbered them)."""
        if self._ids is not None:
            return self._ids
        prefix = self._prefix
        return tuple(f"{prefix}{index}" for index in range(len(self._node_ids)))

    @property
    def numbered(self) -> bool:
        """Whether the ids are a prefix plus the position, hence distinct by construction."""
        return self._ids is None

    def unit_id(self, index: int) -> str:
        """The id of unit ``index``, without building the unit."""
        if self._ids is not None:
            return self._ids[index]
        return f"{self._prefix}{range(len(self._node_ids))[index]}"

    def __len__(self) -> int:
        return len(self._node_ids)

    @overload
    def __getitem__(self, index: int) -> CoverageUnit: ...

    @overload
    def __getitem__(self, index: slice) -> Units: ...

    def __getitem__(self, index: int | slice) -> CoverageUnit | Units:
        if isinstance(index, slice):
            made = Units.__new__(Units)
            made._set(
                self._starts[index],
                self._ends[index],
                tuple(self._node_ids)[index],
                self.ids[index],
                "",
            )
            return made
        return CoverageUnit(
            self.unit_id(index),
            self._node_ids[index],
            SourceSpan(self._starts[index], self._ends[index]),
        )

    def __iter__(self) -> Iterator[CoverageUnit]:
        spans = map(SourceSpan, self._starts, self._ends)
        return map(CoverageUnit, self.ids, self._node_ids, spans)

    def _columns(self) -> tuple[object, ...]:
        return (self._starts, self._ends, tuple(self._node_ids), self.ids)

    def __reduce__(self) -> tuple[Any, ...]:
        node_ids = tuple(self._node_ids)
        if self._ids is None:
            return (_numbered_units, (self._starts, self._ends, node_ids, self._prefix))
        return (_explicit_units, (self._starts, self._ends, node_ids, self._ids))


def _numbered_units(
    starts: Sequence[int], ends: Sequence[int], node_ids: Sequence[str], prefix: str
) -> Units:
    """Unpickling: ``Units.from_offsets`` (a function: keyword arguments cannot be pickled)."""
    return Units.from_offsets(starts, ends, node_ids, id_prefix=prefix)


def _explicit_units(
    starts: Sequence[int], ends: Sequence[int], node_ids: Sequence[str], ids: tuple[str, ...]
) -> Units:
    """Unpickling: units with ids of their own."""
    made = Units.__new__(Units)
    made._set(starts, ends, node_ids, ids, "")
    return made


class UnitColumns:
    """Units recorded one at a time, in source order, as ``Units`` columns numbered
    ``f"{id_prefix}{i}"``: an adapter's partition loop appends without building a value
    (and an id string) per unit."""

    __slots__ = ("ends", "id_prefix", "node_ids", "starts")

    def __init__(self, id_prefix: str) -> None:
        self.id_prefix = id_prefix
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.node_ids: list[str] = []

    def add(self, start: int, end: int, node_id: str) -> None:
        self.starts.append(start)
        self.ends.append(end)
        self.node_ids.append(node_id)

    def __len__(self) -> int:
        return len(self.node_ids)

    def build(self) -> Units:
        return Units.from_offsets(self.starts, self.ends, self.node_ids, id_prefix=self.id_prefix)


def _built_node(
    node_id: str,
    kind: str,
    text: str,
    spans: tuple[SourceSpan, ...],
    parent_id: str | None,
    children: tuple[str, ...],
    level: int | None,
    attributes: Mapping[str, Any],
    serialization: tuple[MapSegment, ...],
) -> NormalizedNode:
    """A node from values ``Nodes`` checked when it was built: no check repeated."""
    node = object.__new__(NormalizedNode)
    _node_node_id(node, node_id)
    _node_kind(node, kind)
    _node_text(node, text)
    _node_spans(node, spans)
    _node_parent_id(node, parent_id)
    _node_children(node, children)
    _node_level(node, level)
    _node_attributes(node, attributes)
    _node_serialization(node, serialization)
    return node


_NONE: Final = -1
"""A ``Nodes`` offset for a node without a span (start and end both)."""


class Nodes(_BuiltOnAccess[NormalizedNode]):
    """A document's nodes kept as columns; ``NormalizedNode`` values built on access.

    Why: as values, a tree held a node object, a span, a spans tuple, a children tuple,
    an id string, a copy of its source text and an index entry per node: 3.3x the input
    of 10 MB of Markdown, more than half the tree, for ~28,000 nodes a 3 MB document
    has. Here a node costs its offsets, its parent's position and references to shared
    values (kind, level, and attributes kept as ``(keys, values)`` tuples, built into a
    read-only mapping on access); ids are numbered (node ``i`` is
    ``f"{id_prefix}:{kind}:{i}"``, so distinct and found by position without a table),
    a leaf's text is its source slice, cut when the node is built, and children are
    found from the parent column (an adapter lists children in document order). A
    serialization map is kept as flat offsets (``map_offsets``): an HTML page has a
    segment per run of text between inline tags, and as ``MapSegment`` objects they
    were one tracked object each for the cyclic collector to walk.

    ``nodes[i]`` and iteration give ``NormalizedNode`` values, equal (not identical)
    each time; readers walking the tree take ``kinds``, ``parents``, ``children`` and
    ``position`` (``Lineage``) instead.
    Compares equal to any sequence of the same nodes (a tuple included).
    """

    __slots__ = (
        "_attributes",
        "_by_parent",
        "_children",
        "_content",
        "_ends",
        "_kinds",
        "_levels",
        "_parents",
        "_prefix",
        "_serialization",
        "_starts",
        "_texts",
    )

    _starts: array[int]
    _ends: array[int]
    _parents: array[int]
    _children: array[int]
    _by_parent: array[int]

    def __init__(
        self,
        content: str,
        id_prefix: str,
        kinds: Sequence[str],
        texts: Sequence[str | None],
        spans: tuple[Sequence[int], Sequence[int]],
        parents: Sequence[int],
        levels: Sequence[int | None] | None = None,
        attributes: Sequence[Mapping[str, Any]] | None = None,
        serialization: Mapping[int, tuple[MapSegment, ...]] | None = None,
        *,
        packed_attributes: Sequence[PackedAttributes] | None = None,
        packed_serialization: Mapping[int, Sequence[int]] | None = None,
    ) -> None:
        """Node ``i`` has kind ``kinds[i]`` and spans ``[starts[i], ends[i])`` (none
        when both are -1); its text is ``texts[i]``, or its source slice when that is
        ``None``; its parent is node ``parents[i]`` (-1 for the root, node 0 only), and
        ``parents[i] < i``. ``attributes`` must be read-only mappings (shared freely);
        without ``levels`` or ``attributes`` every node has none. An adapter may give
        ``packed_attributes`` instead, in the form the columns keep them (``(keys,
        values)`` tuples of immutable values, ``None`` for none; a tuple of pairs may be
        kept flat under a ``PairsKey``, as ``AttributePacker`` does): no pass over
        mappings.
        Likewise ``serialization`` (node position -> its map segments) may come as
        ``packed_serialization``: per position, the segments' offsets as flat
        ``(display_start, display_end, source_start, source_end)`` quadruples, which is
        how the columns keep them (no ``MapSegment`` per run of an HTML page).

        The checks ``NormalizedNode`` and ``NormalizedDocument.validate`` make on
        lineage, ids and spans, made here over whole columns: the adapters build tens
        of thousands of nodes at once.
        """
        starts, ends = spans
        count = len(kinds)
        if levels is None:
            levels = (None,) * count
        if attributes is None:
            attributes = (_NO_ATTRIBUTES,) * count
        attribute_count = len(attributes if packed_attributes is None else packed_attributes)
        if not isinstance(id_prefix, str):  # "" is a prefix too: ids stay nonempty
            raise NormalizationError(f"node id_prefix must be a str (got {id_prefix!r})")
        if (
            not count
            == len(texts)
            == len(starts)
            == len(ends)
            == len(parents)
            == len(levels)
            == attribute_count
        ):
            raise NormalizationError(
                f"nodes need one text, span, parent, level and attributes per kind (got "
                f"{count} kinds, {len(texts)} texts, {len(starts)} starts, {len(ends)} "
                f"ends, {len(parents)} parents, {len(levels)} levels, {attribute_count} "
                "attributes)"
            )
        self._content = content
        self._prefix = id_prefix
        self._kinds = tuple(kinds)
        self._texts = tuple(texts)
        self._levels = tuple(levels)
        if packed_attributes is not None:
            self._attributes = tuple(packed_attributes)
        elif not all(isinstance(mapping, MappingProxyType) for mapping in attributes):
            raise NormalizationError(
                "node attributes must be read-only mappings (MappingProxyType)"
            )
        else:
            self._attributes = _packed_attributes(attributes)
        self._serialization = _flat_maps(serialization, packed_serialization)
        try:
            self._starts = array("q", starts)
            self._ends = array("q", ends)
            self._parents = array("q", parents)
        except (TypeError, OverflowError) as error:
            raise NormalizationError(f"node offsets and parents must be ints ({error})") from None
        self._check()
        # Children: node positions ordered by parent (a stable sort keeps document
        # order), and their parents alongside, searched by bisection.
        order = sorted(range(1, count), key=self._parents.__getitem__)
        self._children = array("q", order)
        self._by_parent = array("q", map(self._parents.__getitem__, order))

    def _check(self) -> None:
        # Every check runs over whole columns in C (map, compress, min): an adapter's
        # tree has a node per paragraph, item and cell, and a Python loop per node here
        # cost as much as building the columns. Only a failing check looks for the node.
        kinds, starts, ends, parents = self._kinds, self._starts, self._ends, self._parents
        if kinds and (set(map(type, kinds)) != {str} or "" in kinds):
            bad = next(i for i, kind in enumerate(kinds) if type(kind) is not str or not kind)
            raise NormalizationError(
                f"node {bad}: kind must be a nonempty str (got {kinds[bad]!r})"
            )
        if parents and parents[0] != -1:
            raise NormalizationError(
                f"node {self.node_id(0)!r}: the root (node 0) must have no parent (-1)"
            )
        if not all(map(int.__lt__, parents[1:], range(1, len(parents)))) or (
            len(parents) > 1 and min(parents[1:]) < 0
        ):
            bad = next(i for i in range(1, len(parents)) if not 0 <= parents[i] < i)
            raise NormalizationError(
                f"node {self.node_id(bad)!r}: its parent must be an earlier node (got "
                f"position {parents[bad]}); only nodes[0] may be parentless"
            )
        # 0 <= start <= end, or both -1: every start is at most its end and at least -1,
        # and every -1 start has a -1 end (so a negative end has a -1 start).
        if (
            not all(map(int.__le__, starts, ends))
            or min(starts, default=0) < -1
            or not all(map(_NONE.__eq__, compress(ends, map(_NONE.__eq__, starts))))
        ):
            for position, (start, end) in enumerate(zip(starts, ends, strict=True)):
                if not (0 <= start <= end or start == end == -1):
                    raise NormalizationError(
                        f"node {self.node_id(position)!r}: span must satisfy 0 <= start <= "
                        f"end, or both -1 for none (got start={start}, end={end})"
                    )
        if starts and max(ends) > len(self._content):
            bad = max(range(len(ends)), key=ends.__getitem__)
            raise NormalizationError(
                f"node {self.node_id(bad)!r} span ends at {ends[bad]}, past the content "
                f"length {len(self._content)}"
            )
        texts = self._texts
        if min(compress(starts, map(operator.is_, texts, repeat(None))), default=0) < 0:
            position = next(i for i, text in enumerate(texts) if text is None and starts[i] < 0)
            raise NormalizationError(
                f"node {self.node_id(position)!r}: a node without a span needs a text"
            )
        if any(not 0 <= index < len(kinds) for index in self._serialization):
            raise NormalizationError("node serialization names a node that does not exist")

    def node_id(self, position: int) -> str:
        """The id of node ``position``, without building the node."""
        return f"{self._prefix}:{self._kinds[position]}:{position}"

    @property
    def id_prefix(self) -> str:
        """What every node id starts with, before ``:kind:position`` (``node_id``)."""
        return self._prefix

    def position(self, node_id: str) -> int | None:
        """Where the node with this id is, or ``None`` when there is none."""
        try:
            position = int(node_id[node_id.rindex(":") + 1 :])
        except (AttributeError, TypeError, ValueError):
            return None  # not a str, no ":" or no number after the last one
        kinds = self._kinds
        # int() also reads "+7", " 7" or "0_7": only the id as built names the node.
        if 0 <= position < len(kinds) and node_id == f"{self._prefix}:{kinds[position]}:{position}":
            return position
        return None

    def serialized(self) -> Iterator[str]:
        """The ids of the nodes with a serialization map."""
        return map(self.node_id, sorted(self._serialization))

    @property
    def kinds(self) -> tuple[str, ...]:
        """Every node's kind, by position."""
        return self._kinds

    @property
    def parents(self) -> memoryview:
        """Every node's parent position (-1 for the root), read-only."""
        return memoryview(self._parents).toreadonly()

    def text(self, position: int) -> str:
        """``self[position].text``, without building the node."""
        text = self._texts[position]
        if text is None:
            return self._content[self._starts[position] : self._ends[position]]
        return text

    def children(self, position: int) -> array[int]:
        """The children's positions, in document order."""
        by_parent = self._by_parent
        low = bisect_left(by_parent, position)
        high = bisect_left(by_parent, position + 1, low)
        return self._children[low:high]

    def __len__(self) -> int:
        return len(self._kinds)

    def _item(self, position: int) -> NormalizedNode:
        start, end = self._starts[position], self._ends[position]
        parent = self._parents[position]
        return _built_node(
            self.node_id(position),
            self._kinds[position],
            self.text(position),
            (SourceSpan(start, end),) if start >= 0 else (),
            None if parent < 0 else self.node_id(parent),
            tuple(map(self.node_id, self.children(position))),
            self._levels[position],
            self.attributes(position),
            _map_segments(self._serialization.get(position)),
        )

    def map_offsets(self, position: int) -> memoryview | None:
        """Node ``position``'s serialization map as flat ``(display_start, display_end,
        source_start, source_end)`` quadruples, read-only; ``None`` when it has none.

        What a reader of many maps (the packer, on HTML) takes instead of ``self[i]``:
        no node and no ``MapSegment`` is built.
        """
        found = self._serialization.get(position)
        return None if found is None else memoryview(found).toreadonly()

    def attributes(self, position: int) -> Mapping[str, Any]:
        """The attributes of node ``position``: a new read-only mapping on each call."""
        packed = self._attributes[position]
        if packed is None:
            return _NO_ATTRIBUTES
        keys, values = packed
        return MappingProxyType(unpacked(keys, values))


_SEGMENT_OFFSETS: Final = operator.attrgetter(
    "display_start", "display_end", "source_start", "source_end"
)


def _flat_maps(
    segments: Mapping[int, tuple[MapSegment, ...]] | None,
    packed: Mapping[int, Sequence[int]] | None,
) -> dict[int, array[int]]:
    """Each node's map as flat offset quadruples (``Nodes``), from segments or packed.

    Packed maps get the checks ``MapSegment`` makes on each segment, over whole
    columns; a node's map may be empty (it still names the node).
    """
    if segments and packed:
        raise NormalizationError(
            "give node serialization maps as segments or packed offsets, not both"
        )
    flat: dict[int, array[int]] = {}
    for position, runs in (segments or {}).items():
        if not all(isinstance(run, MapSegment) for run in runs):
            raise NormalizationError(
                f"node serialization at position {position} must be MapSegment values"
            )
        flat[position] = array("q", chain.from_iterable(map(_SEGMENT_OFFSETS, runs)))
    for position, offsets in (packed or {}).items():
        try:
            values = array("q", offsets)
        except (TypeError, OverflowError) as error:
            raise NormalizationError(
                f"node serialization at position {position} must be ints ({error})"
            ) from None
        if len(values) % 4:
            _bad_map(position)
        flat[position] = values
    if packed:
        # The MapSegment checks, over every packed map at once (an HTML page has a map
        # per block): joined bytes, then one pass per check over whole columns.
        joined = array("q", b"".join(values.tobytes() for values in flat.values()))
        starts, ends = joined[0::4], joined[1::4]
        sources, source_ends = joined[2::4], joined[3::4]
        if (
            min(starts, default=0) < 0
            or min(sources, default=0) < 0
            or not all(map(int.__le__, starts, ends))
            or not all(map(int.__le__, sources, source_ends))
        ):
            _bad_map(next(p for p, v in flat.items() if not _ordered_quads(v)))
    return flat


def _ordered_quads(values: array[int]) -> bool:
    return all(
        0 <= values[i] <= values[i + 1] and 0 <= values[i + 2] <= values[i + 3]
        for i in range(0, len(values), 4)
    )


def _bad_map(position: int) -> NoReturn:
    raise NormalizationError(
        f"node serialization at position {position} must be (display_start, "
        "display_end, source_start, source_end) quadruples, ordered and nonnegative"
    )


def _map_segments(offsets: array[int] | None) -> tuple[MapSegment, ...]:
    """A node's map segments from its flat offsets (``None``: no map)."""
    if not offsets:
        return ()
    quads = iter(offsets)
    return tuple(starmap(MapSegment, zip(quads, quads, quads, quads, strict=True)))


def _packed_attributes(mappings: Sequence[Mapping[str, Any]]) -> tuple[PackedAttributes, ...]:
    """Each node's attributes packed (``None``: none); a mapping given for several nodes
    is packed once (by identity: values need not be hashable)."""
    packer = AttributePacker()
    packed_of: dict[int, PackedAttributes] = {}
    packed: list[PackedAttributes] = []
    for mapping in mappings:
        # ``mappings`` holds every mapping until the loop ends: their ids stay distinct.
        key = id(mapping)
        if key not in packed_of:
            packed_of[key] = packer.own(mapping)
        packed.append(packed_of[key])
    return tuple(packed)


class _NodePositions(Mapping[str, int]):
    """``NormalizedDocument.node_index`` of ``Nodes``: positions read off the ids."""

    __slots__ = ("_nodes",)

    def __init__(self, nodes: Nodes) -> None:
        self._nodes = nodes

    def __getitem__(self, node_id: str) -> int:
        position = self._nodes.position(node_id)
        if position is None:
            raise KeyError(node_id)
        return position

    def __iter__(self) -> Iterator[str]:
        return map(self._nodes.node_id, range(len(self._nodes)))

    def __len__(self) -> int:
        return len(self._nodes)


class NodeIds(_BuiltOnAccess[str]):
    """Node ids named by position in ``Nodes``, each built on access: ``Units`` owners.

    Why: a unit's owner as a string kept one id per owning node alive for the life of
    the tree (0.46x the input of 10 MB of Markdown); here it is a position (8 bytes).
    Compares equal to any sequence of the same strings.
    """

    __slots__ = ("_positions", "nodes")

    def __init__(self, nodes: Nodes, positions: Iterable[int]) -> None:
        self.nodes = nodes
        try:
            self._positions = array("q", positions)
        except (TypeError, OverflowError) as error:
            raise NormalizationError(f"owner positions must be ints ({error})") from None
        if self._positions and not 0 <= min(self._positions) <= max(self._positions) < len(nodes):
            raise NormalizationError(
                f"owner positions must name nodes 0..{len(nodes) - 1} (got "
                f"{min(self._positions)}..{max(self._positions)})"
            )

    @property
    def positions(self) -> memoryview:
        """Each owner's position in ``nodes`` (read-only)."""
        return memoryview(self._positions).toreadonly()

    def __len__(self) -> int:
        return len(self._positions)

    def _item(self, position: int) -> str:
        return self.nodes.node_id(self._positions[position])

    def __iter__(self) -> Iterator[str]:
        return map(self.nodes.node_id, self._positions)


class Lineage(Protocol):
    """A tree's shape by node position (``NormalizedDocument.lineage``)."""

    def node_id(self, position: int) -> str: ...

    def position(self, node_id: str) -> int | None:
        """Where the node with this id is; ``None`` when there is none."""

    def children(self, position: int) -> Sequence[int]:
        """The children's positions, in order."""

    def text(self, position: int) -> str: ...

    def serialized(self) -> Iterator[str]:
        """The ids of the nodes with a serialization map."""

    @property
    def kinds(self) -> Sequence[str]:
        """Every node's kind, by position."""

    @property
    def parents(self) -> Sequence[int]:
        """Every node's parent position; -1 for the root."""


class _NodeTable:
    """``Lineage`` of a tuple of nodes: their fields, ids found by the id table."""

    __slots__ = ("_columns", "_index", "_nodes")

    def __init__(self, nodes: Sequence[NormalizedNode], index: Mapping[str, int]) -> None:
        self._nodes = nodes
        self._index = index
        self._columns: tuple[tuple[str, ...], tuple[int, ...]] | None = None

    def _built(self) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """Kinds and parent positions, made on first use (a reader walking the tree)."""
        if self._columns is None:
            index = self._index
            self._columns = (
                tuple(node.kind for node in self._nodes),
                tuple(
                    -1 if node.parent_id is None else index[node.parent_id] for node in self._nodes
                ),
            )
        return self._columns

    @property
    def kinds(self) -> tuple[str, ...]:
        return self._built()[0]

    @property
    def parents(self) -> tuple[int, ...]:
        return self._built()[1]

    def text(self, position: int) -> str:
        return self._nodes[position].text

    def node_id(self, position: int) -> str:
        return self._nodes[position].node_id

    def position(self, node_id: str) -> int | None:
        return self._index.get(node_id)

    def serialized(self) -> Iterator[str]:
        return (node.node_id for node in self._nodes if node.serialization)

    def children(self, position: int) -> list[int]:
        return list(map(self._index.__getitem__, self._nodes[position].children))


@dataclass(frozen=True, slots=True)
class NormalizedDocument:
    """A parsed document read into a tree plus a coverage partition of its content."""

    document: Document
    format: str
    nodes: Sequence[NormalizedNode]
    """A ``Nodes`` (columns) is kept as it is; any other sequence as a tuple."""
    units: Sequence[CoverageUnit]
    """Kept as ``Units`` (offset and owner columns), whatever sequence was passed."""
    exclusions: Sequence[Exclusion] = ()
    """Kept as ``Exclusions`` (offset arrays), whatever sequence was passed."""
    diagnostics: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=lambda: _NO_ATTRIBUTES)
    _index: Mapping[str, int] = field(init=False, repr=False, compare=False)
    _lineage: Lineage = field(init=False, repr=False, compare=False)
    _validated: bool = field(init=False, repr=False, compare=False, default=False)

    def __post_init__(self) -> None:
        diagnostics: Iterable[str] = self.diagnostics  # a caller may pass any iterable
        if not isinstance(diagnostics, tuple):
            object.__setattr__(self, "diagnostics", tuple(diagnostics))
        nodes = self.nodes
        if isinstance(nodes, Nodes):
            if nodes._content is not self.document.content and (
                nodes._content != self.document.content
            ):
                raise NormalizationError(
                    f"document {self.document.id!r}: its Nodes were built over another content"
                )
        elif not isinstance(nodes, tuple):
            object.__setattr__(self, "nodes", tuple(nodes))
        object.__setattr__(self, "units", Units.of(self.units))
        object.__setattr__(self, "exclusions", Exclusions.of(self.exclusions))
        if not isinstance(self.metadata, MappingProxyType):
            object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))
        if isinstance(nodes, Nodes):
            object.__setattr__(self, "_index", _NodePositions(nodes))
            object.__setattr__(self, "_lineage", nodes)
        else:
            index = {node.node_id: position for position, node in enumerate(self.nodes)}
            object.__setattr__(self, "_index", MappingProxyType(index))
            object.__setattr__(self, "_lineage", _NodeTable(self.nodes, index))

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

    @property
    def lineage(self) -> Lineage:
        """Kinds, parents and children by position, without building nodes: with
        ``Nodes`` a node is built on each access, children ids and all (a section of
        1,000 paragraphs builds 1,000 ids), so readers walking the tree take this."""
        return self._lineage

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
        table = Units.of(self.units)
        return sum(table.ends) - sum(table.starts)

    @property
    def excluded_characters(self) -> int:
        table = Exclusions.of(self.exclusions)
        return sum(table.ends) - sum(table.starts)

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
        # ``Nodes`` checked lineage, spans and distinct ids when they were built.
        if not isinstance(self.nodes, Nodes):
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
        _check_partition(
            Units.of(self.units), Exclusions.of(self.exclusions), self._index, content_length, where
        )
        object.__setattr__(self, "_validated", True)
        return self


def _check_lineage(nodes: Sequence[NormalizedNode], index: Mapping[str, int], where: str) -> None:
    # Linear: every listed child must name its lister as parent, no node may list a child
    # twice, and the listings must number the non-root nodes; then every parent lists
    # all of its children without a per-parent membership scan (quadratic for a root
    # with many paragraphs). A child names one parent, so only that parent can list it:
    # with no repeat inside a listing, the listed nodes are distinct, and as many as
    # the non-root nodes means all of them (no set of every id: a tenth of the input's
    # size at the adapters' peak).
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
        children = node.children
        for child_id in children:
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
        if len(children) > 1 and len(set(children)) != len(children):
            raise NormalizationError(f"{where}: a node lists the same child more than once")
        listings += len(children)
    if nodes and listings != len(nodes) - 1:
        listed = {child for node in nodes for child in node.children}
        unlisted = next(node.node_id for node in nodes[1:] if node.node_id not in listed)
        parent = nodes[index[unlisted]].parent_id
        raise NormalizationError(f"{where}: parent {parent!r} does not list child {unlisted!r}")


def _check_partition(
    units: Units,
    exclusions: Exclusions,
    index: Mapping[str, int],
    content_length: int,
    where: str,
) -> None:
    """Units and exclusions, each already in source order, must tile [0, length) once."""
    if not units.numbered:  # numbered ids are distinct by construction
        ids = units.ids
        if len(set(ids)) != len(ids):
            seen: set[str] = set()
            for unit_id in ids:
                if unit_id in seen:
                    raise NormalizationError(f"{where}: duplicate unit id {unit_id!r}")
                seen.add(unit_id)
    node_ids = units.node_ids
    if (
        isinstance(node_ids, NodeIds)
        and isinstance(index, _NodePositions)
        and node_ids.nodes is index._nodes
    ):
        pass  # positions into this very tree: checked when the column was built
    elif not set(node_ids) <= index.keys():
        at = next(i for i, node_id in enumerate(units.node_ids) if node_id not in index)
        raise NormalizationError(
            f"{where}: unit {units.unit_id(at)!r} names a missing node {units.node_ids[at]!r}"
        )
    unit_starts = units.starts
    if not all(map(int.__lt__, unit_starts[:-1], unit_starts[1:])):
        at = next(i + 1 for i, (a, b) in enumerate(pairwise(unit_starts)) if b <= a)
        raise NormalizationError(
            f"{where}: units must be in source order (unit {units.unit_id(at)!r} at "
            f"{unit_starts[at]})"
        )
    excluded_starts = exclusions.starts
    if not all(map(int.__lt__, excluded_starts[:-1], excluded_starts[1:])):
        at = next(b for a, b in pairwise(excluded_starts) if b <= a)
        raise NormalizationError(f"{where}: exclusions must be in source order (at {at})")
    position = _check_tiling(units, exclusions, where)
    if position != content_length:
        raise NormalizationError(
            f"{where}: coverage ends at {position} but the content has {content_length} "
            "characters; every character must be owned by one unit or one exclusion"
        )


_TILING_WINDOW = 8192
"""Units checked at a time by ``_check_tiling``: its lists stay a few hundred KB."""


def _check_tiling(units: Units, exclusions: Exclusions, where: str) -> int:
    """Check that units and exclusions, each in source order, tile ``[0, end)`` with no
    gap or overlap; return ``end``.

    Merged by start (a unit before an exclusion at the same start), each range must end
    where the next starts: compared as whole lists, in C. A window of units (and the
    exclusions before the next window's first unit) at a time: over a whole document
    the lists and their sort were twice the input's size at the adapters' peak.
    """
    unit_starts, unit_ends = units.starts, units.ends
    excluded_starts, excluded_ends = exclusions.starts, exclusions.ends
    count = len(unit_starts)
    position = 0
    taken = 0  # exclusions checked
    for low in range(0, count or 1, _TILING_WINDOW):
        high = min(low + _TILING_WINDOW, count)
        upto = (
            bisect_left(excluded_starts, unit_starts[high], taken)
            if high < count
            else len(excluded_starts)
        )
        starts = unit_starts[low:high].tolist()
        starts.extend(excluded_starts[taken:upto])
        ends = unit_ends[low:high].tolist()
        ends.extend(excluded_ends[taken:upto])
        taken = upto
        if not starts:
            continue
        order = sorted(range(len(starts)), key=starts.__getitem__)
        starts = list(map(starts.__getitem__, order))
        ends = list(map(ends.__getitem__, order))
        if starts[0] != position or starts[1:] != ends[:-1]:
            for start, end in zip(starts, ends, strict=True):
                if start != position:
                    problem = "overlaps" if start < position else "leaves a gap at"
                    raise NormalizationError(
                        f"{where}: coverage {problem} offset {position}: units and "
                        "exclusions must partition the content exactly once"
                    )
                position = end
        position = ends[-1]
    return position
