"""From a normalized tree to the ordered blocks and sections the packer works on.

One pass over the coverage units (already in source order) groups them into *blocks*:
the node directly under a section or the root that owns them (see ``blocks.py``). Each
block gets its display text and a tuple of *runs* tiling that text, each run saying
where its characters come from (``_display.py`` builds them):

``SOURCE``    retained source, shown verbatim;
``RENDERED``  retained source shown differently (an HTML entity decoded …);
``GAP``       whitespace-only excluded source between two units, copied verbatim;
``INSERTED``  whitespace the display adds (no source);
``LABEL``     non-whitespace the display adds, e.g. a list bullet in HTML (no source).

For text, Markdown and reStructuredText a block's display is its exact source slice
(units plus the whitespace between them), so a chunk of whole blocks is a plain slice of
the document. A node with a ``serialization`` (HTML) displays its readable ``text``; its
map segments become the runs. Each section gets its lineage (section chain, heading ids
and titles, outermost first) once, shared by all its blocks. Last, short lead-in
paragraphs ("…the following:") are made attach-forward (``lead_in.mark``): a decision on a
block's text and its neighbour, which the per-kind table cannot make.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final, NamedTuple

from fastrag.normalization.model import NodeIds, Nodes, NormalizedDocument, Units
from fastrag.packing._display import RETAINED, Owner, Run, RunKind, Unit, block_display
from fastrag.packing.blocks import Behaviour, behaviour_for
from fastrag.packing.config import PackingConfig
from fastrag.packing.contract import path_title
from fastrag.packing.lead_in import mark as mark_lead_ins

__all__ = [
    "RETAINED",
    "Assembler",
    "Block",
    "Layout",
    "Run",
    "RunKind",
    "Section",
    "build_layout",
]

CONTAINERS: Final = frozenset({"document", "section"})
BLOCK_SEPARATOR: Final = "\n\n"
_VERBATIM: Final = (RunKind.SOURCE, RunKind.GAP)


@dataclass(frozen=True, slots=True)
class Section:
    """A section (or the root, index 0) with the lineage every chunk inside it reports."""

    node_id: str | None
    depth: int
    chain: tuple[int, ...]
    """Section indices from the root down to this one."""
    heading_id: str | None
    heading_ids: tuple[str, ...]
    titles: tuple[str, ...]


class Block(NamedTuple):
    """One packable block: display text, runs, owned unit slots and lineage.

    A named tuple rather than a frozen dataclass: just as immutable, and built about
    eight times faster (a frozen dataclass writes each of its 16 fields through
    ``object.__setattr__``), which matters at tens of thousands of blocks a document set.
    """

    number: int
    """Position in ``Layout.blocks``."""
    node_id: str
    kind: str
    behaviour: Behaviour
    section: int
    text: str
    runs: tuple[Run, ...]
    slots: tuple[tuple[int, int, str], ...]
    """``(display_start, display_end, owner node id)`` of each unit, in order."""
    start: int
    """Source offset of the first retained character."""
    end: int
    """Source offset after the last retained character."""
    gap: str
    """Display text joining this block to the previous one ("" for the first)."""
    gap_verbatim: bool
    """Whether ``gap`` is the source between the blocks (whitespace) or inserted."""
    pure: bool
    """Every run is verbatim source (retained units and the whitespace between them), so
    any display range of the block is one contiguous slice of the document."""
    blank: bool
    """No retained run shows a non-whitespace character. A chunk of only such blocks
    would be whitespace (or a bare bullet), which the ``Chunker`` base drops: blank blocks
    always travel with a neighbour, and a document of only blank blocks yields nothing."""
    refined: tuple[int, ...] = ()
    """Display offsets a chat model chose as boundaries (``pack(refinements=...)``),
    kept only for a block whose display is its exact source slice; empty otherwise."""


@dataclass(frozen=True, slots=True)
class Layout:
    """Blocks and sections of one document (or one window of it, see ``build_layouts``)."""

    normalized: NormalizedDocument
    blocks: tuple[Block, ...]
    sections: Sequence[Section]
    """Every section of the document met so far (one list shared by all windows)."""
    ranges: Mapping[int, tuple[int, int]]
    """``(first block, end block)`` of each section's subtree in these blocks."""
    retained: tuple[tuple[int, int], ...]
    """The union of these blocks' units, touching spans coalesced: what any source slice
    inside them retains."""
    positions: Mapping[str, int]
    """Positions of node ids met in these blocks (their units' owners and the blocks),
    read where a split site needs an owner's position: ``Nodes`` would parse the id and
    rebuild it to check it (100k+ lookups in the Markdown corpus). The builder's own
    dict: it forgets them when the next window starts (blocks carried over into it
    included), so it may lack some but never holds a wrong one (ids are the
    document's); ``CutSite.position`` falls back on the tree."""
    seams: tuple[int, ...] = ()
    """Blocks (ascending, none the first) where such a cut may be: each the heading of
    a section below top level, after body text, opening with text, not bare."""
    boundaries: tuple[int, ...] = ()
    """Blocks where a cut always holds: top-level sections' headings, as ``seams``."""
    continued: frozenset[int] = frozenset()
    """Sections begun in an earlier window: too large to fit whole (a seam is a cut only
    then), so the planner does not try them whole."""
    unfinished: frozenset[int] = frozenset()
    """Sections that go on past this window's last block."""

    @property
    def continues(self) -> bool:
        """The window ends inside a top-level section (``windows.build_layouts``): its
        plans are final only up to a cut the planner proves (``Planner.cut``)."""
        return bool(self.unfinished)

    @property
    def content(self) -> str:
        return self.normalized.content


class _Owners:
    """``Owner`` values for the display, read from the tree's columns when it keeps them
    (``Nodes``: no node or ``MapSegment`` is built) and from its nodes otherwise."""

    __slots__ = ("columns", "normalized", "positions")

    def __init__(self, normalized: NormalizedDocument, positions: dict[str, int]) -> None:
        self.normalized = normalized
        self.positions = positions
        """Positions of the ids met in this window (``_Builder.positions``)."""
        nodes = normalized.nodes
        self.columns: Nodes | None = nodes if isinstance(nodes, Nodes) else None

    def get(self, node_id: str) -> Owner:
        columns = self.columns
        if columns is None:
            node = self.normalized.node(node_id)
            return Owner(
                node_id,
                node.kind,
                node.text,
                [
                    (run.display_start, run.display_end, run.source_start, run.source_end)
                    for run in node.serialization
                ],
            )
        position = self.positions.get(node_id)
        if position is None:
            position = columns.position(node_id)
            if position is None:
                raise KeyError(node_id)
        offsets = columns.map_offsets(position)
        quads = iter(offsets if offsets is not None else ())
        return Owner(
            node_id,
            columns.kinds[position],
            columns.text(position),
            list(zip(quads, quads, quads, quads, strict=True)),
        )


class _Builder:
    """Memoized lookups from nodes to their block node and section index.

    Walks go by position through ``NormalizedDocument.lineage``: no node is built for
    a kind or a parent (a columnar tree builds a node, children ids and all, on each
    access).
    """

    def __init__(self, normalized: NormalizedDocument) -> None:
        self.normalized = normalized
        self.lineage = lineage = normalized.lineage
        self.kinds, self.parents = lineage.kinds, lineage.parents
        self.owners: dict[int, int] = {}
        """Block node position of each unit owner position met in this window (its id is
        in ``ids``: no pair per owner)."""
        self.ids: dict[int, str] = {}
        """Id of each owner and block position met in this window: one string per node,
        shared by its units (``Nodes`` builds an id on each request)."""
        self.positions: dict[str, int] = {}
        """The reverse of ``ids``: a unit's owner id back to its position for the
        display (``Nodes`` parses an id on each request)."""
        self.section_at: dict[int, int] = {}
        """Section index of each node position met in this window (the root's is 0)."""
        self.section_index: dict[int, int] = {}
        """Section index of each section node met in the document."""
        self._id_prefix = f"{lineage.id_prefix}:" if isinstance(lineage, Nodes) else None
        """``Nodes.node_id``'s prefix, to build ids here: compiled, where a call to the
        tree's (interpreted) method per owner and block cost more than the f-string."""
        self.sections: list[Section] = [Section(None, 0, (0,), None, (), ())]

    def forget(self) -> None:
        """A window closed: its units' owners are not looked up again (one per unit of
        the document otherwise). So do the nodes' section indices (one per node of the
        document otherwise; pack's peak on 10 MB of Markdown fell by 0.17x the input):
        found again from their parents, they give the same index, since a section met
        again is found in ``section_index`` rather than added twice."""
        self.owners.clear()
        self.ids.clear()
        self.positions.clear()
        self.section_at.clear()

    def owner_positions(self, units: Units) -> Iterable[int]:
        """The position of each unit's owner: read off ``NodeIds`` of this very tree,
        else looked up by id."""
        owners = units.node_ids
        if isinstance(owners, NodeIds) and owners.nodes is self.lineage:
            return owners.positions
        return map(self._position, owners)

    def node_id(self, position: int) -> str:
        found = self.ids.get(position)
        if found is None:
            prefix = self._id_prefix
            found = self.ids[position] = (
                self.lineage.node_id(position)
                if prefix is None
                else f"{prefix}{self.kinds[position]}:{position}"
            )
            self.positions[found] = position
        return found

    def owner(self, owner: int) -> int:
        """The position of the ancestor-or-self of node ``owner`` directly under a
        container (its block node); the owner's id is in ``ids`` from then on."""
        found = self.owners.get(owner)
        if found is not None:
            return found
        kinds, parents = self.kinds, self.parents
        position = owner
        while kinds[position] not in CONTAINERS:
            parent = parents[position]
            if parent < 0 or kinds[parent] in CONTAINERS:
                break
            position = parent
        self.node_id(owner)
        self.owners[owner] = position
        return position

    def _position(self, node_id: str) -> int:
        position = self.lineage.position(node_id)
        if position is None:
            raise KeyError(f"no node {node_id!r} in document {self.normalized.document.id!r}")
        return position

    def section_of(self, position: int) -> int:
        """Index of the nearest section enclosing node ``position`` (itself if a
        section)."""
        found = self.section_at.get(position)
        if found is not None:
            return found
        parent_position = self.parents[position]
        parent = 0 if parent_position < 0 else self.section_of(parent_position)
        index = parent
        if self.kinds[position] == "section":
            index = self.section_index.get(position, -1)
            if index < 0:
                index = self.section_index[position] = self._add_section(position, parent)
        self.section_at[position] = index
        return index

    def _add_section(self, position: int, parent: int) -> int:
        lineage = self.lineage
        outer = self.sections[parent]
        kinds = self.kinds
        heading = next(
            (child for child in lineage.children(position) if kinds[child] == "heading"), -1
        )
        heading_id: str | None = None
        heading_ids, titles = outer.heading_ids, outer.titles
        if heading >= 0:
            heading_id = lineage.node_id(heading)
            heading_ids = (*heading_ids, heading_id)
            titles = (*titles, path_title(lineage.text(heading)))
        index = len(self.sections)
        self.sections.append(
            Section(
                lineage.node_id(position),
                outer.depth + 1,
                (*outer.chain, index),
                heading_id,
                heading_ids,
                titles,
            )
        )
        return index


def build_layout(
    normalized: NormalizedDocument,
    config: PackingConfig,
    refinements: Mapping[str, tuple[int, ...]] | None = None,
) -> Layout:
    """Group the units into blocks, in source order, with display runs and lineage.

    ``refinements`` (block node id -> source offsets) become each block's ``refined``
    display offsets; offsets outside a block, and blocks that are not a verbatim source
    slice, are ignored (the splitter re-checks every offset against its sentences).
    The whole document at once; ``windows.build_layouts`` gives it a window at a time.
    """
    assembler = Assembler(normalized, config, refinements)
    blocks: list[Block] = []
    units: list[list[Unit]] = []
    for position, block_id, owned in assembler.groups():
        blocks.append(assembler.block(len(blocks), position, block_id, owned))
        units.append(owned)
    if not blocks:
        return Layout(normalized, (), (), {}, (), {})
    return assembler.layout(blocks, units)


class Assembler:
    """Builds blocks one at a time and assembles windows of them into layouts."""

    def __init__(
        self,
        normalized: NormalizedDocument,
        config: PackingConfig,
        refinements: Mapping[str, tuple[int, ...]] | None,
    ) -> None:
        self.normalized = normalized
        self.config = config
        self.refinements = refinements
        self.builder = builder = _Builder(normalized)
        self.sections = builder.sections
        # ``Nodes`` cut a leaf's text anew on each access: no string to share with it.
        self.shared_texts = not isinstance(normalized.nodes, Nodes)
        self.serialized = frozenset(normalized.lineage.serialized())
        self.owners = _Owners(normalized, builder.positions)
        self.behaviours: dict[str, Behaviour] = {}
        self.previous_end = -1

    def groups(self) -> Iterator[tuple[int, str, list[Unit]]]:
        """Consecutive units with the same block node (its position and id), in source
        order."""
        builder = self.builder
        known, owner_of, ids, node_id = builder.owners, builder.owner, builder.ids, builder.node_id
        current = -1
        current_id = ""
        owned: list[Unit] = []
        table = Units.of(self.normalized.units)
        owners = builder.owner_positions(table)
        for start, end, owner in zip(table.starts, table.ends, owners, strict=True):
            block = known.get(owner)
            if block is None:
                block = owner_of(owner)
            unit = (start, end, ids[owner])
            if block != current or not owned:
                if owned:
                    yield current, current_id, owned
                owned = [unit]
                current = block
                current_id = ids.get(block) or node_id(block)
            else:
                owned.append(unit)
        if owned:
            yield current, current_id, owned

    def block(self, number: int, position: int, block_id: str, units: list[Unit]) -> Block:
        normalized, config = self.normalized, self.config
        content = normalized.content
        owner_of = self.owners.get
        kind = self.builder.kinds[position]
        text, runs, slots = block_display(
            content, owner_of, self.serialized, units, kind, shared_texts=self.shared_texts
        )
        start, end = units[0][0], units[-1][1]
        gap, verbatim = "", True
        if self.previous_end >= 0:
            gap = content[self.previous_end : start]
            if gap and not gap.isspace():
                gap, verbatim = BLOCK_SEPARATOR, False
        self.previous_end = end
        behaviour = self.behaviours.get(kind)
        if behaviour is None:
            behaviour = self.behaviours[kind] = behaviour_for(
                kind,
                code=config.preserve_code_blocks,
                table=config.preserve_table_rows,
                lists=config.preserve_list_hierarchy,
            )
        if len(runs) == 1 and runs[0][4] == RunKind.SOURCE:
            # One verbatim run (most Markdown and text blocks): its text is the run.
            # ``isspace`` holds exactly where ``strip`` leaves nothing, without a copy.
            pure, blank = True, not text or text.isspace()
        else:
            # Verbatim and contiguous: two verbatim runs of one node may stand on either
            # side of an excluded comment or script ("Hello<!-- x --> world"), and a
            # slice from the first to the second would show it.
            pure = all(run[4] in _VERBATIM for run in runs) and all(
                previous[3] == run[2] for previous, run in pairwise(runs)
            )
            blank = not any(text[r[0] : r[1]].strip() for r in runs if r[4] in RETAINED)
        refinements = self.refinements
        # By ``tuple.__new__``, as ``refine.new_atom``: a named tuple's own ``__new__`` is
        # interpreted, and this runs once per block.
        return tuple.__new__(
            Block,
            (
                number,
                block_id,
                kind,
                behaviour,
                self.builder.section_of(position),
                text,
                runs,
                slots,
                start,
                end,
                gap,
                verbatim,
                pure,
                blank,
                _refined(refinements, block_id, text, content, start, end) if refinements else (),
            ),
        )

    def layout(
        self,
        blocks: list[Block],
        units: list[list[Unit]],
        *,
        seams: tuple[int, ...] = (),
        boundaries: tuple[int, ...] = (),
        continued: frozenset[int] = frozenset(),
        unfinished: frozenset[int] = frozenset(),
    ) -> Layout:
        """A window's layout: lead-ins marked, section ranges and retained intervals;
        the rest as ``Layout`` says."""
        marked = mark_lead_ins(blocks, plain_text=self.normalized.format == "text")
        sections = self.sections
        ranges: dict[int, tuple[int, int]] = {}
        for block in marked:  # in order: a section's range starts at its first block
            number = block.number
            for section in sections[block.section].chain:
                ranges[section] = (ranges.get(section, (number,))[0], number + 1)
        # Adjacent units merge into one interval; its tuple is made once, when it ends
        # (not once per unit it absorbs).
        retained: list[tuple[int, int]] = []
        low = high = -1
        for owned in units:
            for start, end, _ in owned:
                if high == start:
                    high = end
                    continue
                if high >= 0:
                    retained.append((low, high))
                low, high = start, end
        if high >= 0:
            retained.append((low, high))
        return Layout(
            self.normalized,
            tuple(marked),
            sections,
            ranges,
            tuple(retained),
            self.builder.positions,
            seams,
            boundaries,
            continued,
            unfinished,
        )


def _refined(
    refinements: Mapping[str, tuple[int, ...]] | None,
    block_id: str,
    text: str,
    content: str,
    start: int,
    end: int,
) -> tuple[int, ...]:
    """A block's refined source offsets as display offsets, if its display is its source."""
    if not refinements:
        return ()
    offsets = refinements.get(block_id)
    if not offsets or text != content[start:end]:
        return ()
    return tuple(sorted({offset - start for offset in offsets if start < offset < end}))
