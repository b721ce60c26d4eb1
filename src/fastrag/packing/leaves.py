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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, NamedTuple

from fastrag.normalization.model import CoverageUnit, NormalizedDocument, NormalizedNode
from fastrag.packing._display import RETAINED, Run, RunKind, block_display
from fastrag.packing.blocks import Behaviour, behaviour_for
from fastrag.packing.config import PackingConfig
from fastrag.packing.lead_in import mark as mark_lead_ins

__all__ = ["RETAINED", "Block", "Layout", "Run", "RunKind", "Section", "build_layout"]

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
    """Blocks and sections of one document, plus each section's block range."""

    normalized: NormalizedDocument
    blocks: tuple[Block, ...]
    sections: tuple[Section, ...]
    ranges: tuple[tuple[int, int], ...]
    """``(first block, end block)`` of each section's subtree (root: all blocks)."""
    retained: tuple[tuple[int, int], ...]
    """The union of all units, touching spans coalesced: what any source slice retains."""

    @property
    def content(self) -> str:
        return self.normalized.content


class _Builder:
    """Memoized lookups from nodes to their block node and section index."""

    def __init__(self, normalized: NormalizedDocument) -> None:
        self.normalized = normalized
        self.nodes: dict[str, NormalizedNode] = {node.node_id: node for node in normalized.nodes}
        self.block_of: dict[str, str] = {}
        self.section_of: dict[str, int] = {}
        root = normalized.nodes[0] if normalized.nodes else None
        self.sections: list[Section] = [Section(None, 0, (0,), None, (), ())]
        if root is not None:
            self.section_of[root.node_id] = 0

    def block_node(self, owner_id: str) -> str:
        """The ancestor-or-self of ``owner_id`` directly under a container."""
        found = self.block_of.get(owner_id)
        if found is not None:
            return found
        nodes = self.nodes
        node = nodes[owner_id]
        while node.kind not in CONTAINERS and node.parent_id is not None:
            parent = nodes[node.parent_id]
            if parent.kind in CONTAINERS:
                break
            node = parent
        self.block_of[owner_id] = node.node_id
        return node.node_id

    def section(self, node_id: str) -> int:
        """Index of the nearest section enclosing ``node_id`` (itself if a section)."""
        found = self.section_of.get(node_id)
        if found is not None:
            return found
        node = self.nodes[node_id]
        if node.kind == "section":
            parent = 0 if node.parent_id is None else self.section(node.parent_id)
            index = self._add_section(node, parent)
        else:
            index = 0 if node.parent_id is None else self.section(node.parent_id)
        self.section_of[node_id] = index
        return index

    def _add_section(self, node: NormalizedNode, parent: int) -> int:
        outer = self.sections[parent]
        heading = next(
            (
                child
                for child in map(self.normalized.node, node.children)
                if child.kind == "heading"
            ),
            None,
        )
        heading_ids, titles = outer.heading_ids, outer.titles
        if heading is not None:
            heading_ids = (*heading_ids, heading.node_id)
            titles = (*titles, heading.text)
        index = len(self.sections)
        self.sections.append(
            Section(
                node.node_id,
                outer.depth + 1,
                (*outer.chain, index),
                None if heading is None else heading.node_id,
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
    """
    content = normalized.content
    builder = _Builder(normalized)
    nodes = builder.nodes
    serialized = frozenset(node.node_id for node in normalized.nodes if node.serialization)
    groups: list[tuple[str, list[CoverageUnit]]] = []
    current_id = ""
    block_of = builder.block_of
    for unit in normalized.units:
        block_id = block_of.get(unit.node_id) or builder.block_node(unit.node_id)
        if block_id != current_id or not groups:
            groups.append((block_id, [unit]))
            current_id = block_id
        else:
            groups[-1][1].append(unit)
    behaviours: dict[str, Behaviour] = {}
    blocks: list[Block] = []
    previous_end = -1
    section_index = builder.section
    source = RunKind.SOURCE
    for index, (block_id, units) in enumerate(groups):
        node = nodes[block_id]
        kind = node.kind
        text, runs, slots = block_display(content, nodes, serialized, units, kind)
        start, end = units[0].span.start, units[-1].span.end
        gap, verbatim = "", True
        if previous_end >= 0:
            gap = content[previous_end:start]
            if gap and not gap.isspace():
                gap, verbatim = BLOCK_SEPARATOR, False
        behaviour = behaviours.get(kind)
        if behaviour is None:
            behaviour = behaviours[kind] = behaviour_for(
                kind,
                code=config.preserve_code_blocks,
                table=config.preserve_table_rows,
                lists=config.preserve_list_hierarchy,
            )
        if len(runs) == 1 and runs[0][4] == source:
            # One verbatim run (most Markdown and text blocks): its text is the run.
            # ``isspace`` holds exactly where ``strip`` leaves nothing, without a copy.
            pure, blank = True, not text or text.isspace()
        else:
            pure = all(run[4] in _VERBATIM for run in runs)
            blank = not any(text[r[0] : r[1]].strip() for r in runs if r[4] in RETAINED)
        blocks.append(
            Block(
                index,
                block_id,
                kind,
                behaviour,
                section_index(block_id),
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
            )
        )
        previous_end = end
    blocks = mark_lead_ins(blocks)
    sections = builder.sections
    ranges = [(len(blocks), 0)] * len(sections)
    for block in blocks:
        for section in sections[block.section].chain:
            first, end = ranges[section]
            ranges[section] = (min(first, block.number), max(end, block.number + 1))
    retained: list[tuple[int, int]] = []
    for unit in normalized.units:
        if retained and retained[-1][1] == unit.span.start:
            retained[-1] = (retained[-1][0], unit.span.end)
        else:
            retained.append((unit.span.start, unit.span.end))
    return Layout(normalized, tuple(blocks), tuple(sections), tuple(ranges), tuple(retained))


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
