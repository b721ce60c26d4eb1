"""Rendering one planned chunk: its display text, serialization map and metadata.

The chunk's atoms are grouped into block segments; each segment shows its slice of the
block's display runs, and consecutive blocks are joined by the source between them
(whitespace, copied verbatim) or a blank line (an inserted ``separator``). Leading
whitespace of the first segment and trailing whitespace of the last are left out — the
gap belongs to no chunk — so a chunk of whole Markdown blocks is exactly
``content[char_start:char_end]`` with one coalesced ``source`` run. Repeated context
(a table header, parent list labels, code fences) and overlap are copied from the source
as ``context`` / ``overlap`` runs; only verbatim runs can be repeated, anything rendered
is repeated as a ``separator``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Final

from fastrag.packing.contract import STRUCTURE_VERSION
from fastrag.packing.costs import Costs
from fastrag.packing.counter import Part
from fastrag.packing.leaves import Block, Run, RunKind
from fastrag.packing.refine import Atom
from fastrag.packing.split import ContextRange

__all__ = ["Overlap", "Renderer"]

_PRIMARY: Final = 0
_CONTEXT: Final = 1
_OVERLAP: Final = 2
_VERBATIM_KIND: Final = ("source", "context", "overlap")
_WHITESPACE_RUNS: Final = (RunKind.GAP, RunKind.INSERTED)
MapRun = tuple[int, int, int, int, str]
"""``(start, end, source_start, source_end, kind)`` of a chunk's serialization map."""
_MAP_KIND: Final = ("source", "rendered", "source", "separator", "separator")
"""The serialization-map kind of each ``RunKind``, indexed by its value (hot loop)."""
_START: Final = itemgetter(0)
_END: Final = itemgetter(1)
_LAST_RETAINED: Final = 1
"""The retained kinds are the first two: ``SOURCE`` (0) and ``RENDERED`` (1)."""


@dataclass(frozen=True, slots=True)
class Overlap:
    """Display range ``[start, end)`` of ``block`` repeated at the start of a chunk."""

    block: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Shown:
    """A rendered chunk before metadata: its text, map runs and retained intervals."""

    text: str
    runs: list[MapRun]
    retained: list[tuple[int, int]]
    parts: list[Part]
    """Pieces joining to ``text``, block displays by their prepared leaves (counting)."""


def _source_start(block: Block, offset: int) -> int:
    """Source offset of the first retained character shown at or after ``offset``."""
    runs = block.runs
    index = max(bisect_right(runs, (offset, len(block.text) + 1)) - 1, 0)
    while runs[index][4] != RunKind.SOURCE or runs[index][1] <= offset:
        index += 1
    d0, _, s0, _, _ = runs[index]
    return s0 + max(offset - d0, 0)


def _source_end(block: Block, offset: int) -> int:
    """Source offset after the last retained character shown before ``offset``."""
    runs = block.runs
    index = max(bisect_right(runs, (offset - 1, len(block.text) + 1)) - 1, 0)
    while runs[index][4] != RunKind.SOURCE or runs[index][0] >= offset:
        index -= 1
    d0, d1, s0, _, _ = runs[index]
    return s0 + min(offset, d1) - d0


class _Display:
    """Accumulates display parts, coalesced map runs and retained intervals."""

    __slots__ = ("marks", "parts", "position", "retained", "runs")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.runs: list[MapRun] = []
        """Map runs as the chunk's ``serialization_map`` holds them: tuples, the last
        replaced when the next run extends it (no list per run to convert afterwards,
        and tuples of ints and strings the cyclic collector stops tracking)."""
        self.retained: list[list[int]] = []
        self.position = 0
        self.marks: list[tuple[int, int, int, int, int]] = []
        """``(position, end, block, start, end)``: display ``[start, end)`` of ``block``
        shown verbatim at ``[position, end)`` of the chunk (for ``Costs.block_parts``)."""

    def add(self, text: str, source_start: int, source_end: int, kind: str) -> None:
        if not text:
            return
        end = self.position + len(text)
        self.parts.append(text)
        last = self.runs[-1] if self.runs else None
        if (
            last is not None
            and last[4] == kind
            and (kind == "separator" or (kind != "rendered" and last[3] == source_start))
        ):
            self.runs[-1] = (last[0], end, last[2], source_end, kind)
        else:
            self.runs.append((self.position, end, source_start, source_end, kind))
        self.position = end

    def show(self, text: str, runs: list[Run]) -> None:
        """``add`` (and ``retain``) each of ``runs``, display-contiguous runs of ``text``.

        The hot path of a chunk with many map runs (HTML): one slice of ``text`` instead
        of one per run, and the run bookkeeping inlined; the result is exactly that of
        the per-run calls in ``Renderer._primary``.
        """
        position = self.position
        out, retained = self.runs, self.retained
        # Sentinels instead of emptiness tests in the loop; neither is ever written to:
        # no retained run starts at -2, no map run has the kind "".
        tail = retained[-1] if retained else [-2, -2]
        last: MapRun = out[-1] if out else (0, 0, 0, 0, "")
        names = _MAP_KIND
        for d0, d1, s0, s1, run_kind in runs:
            if run_kind <= _LAST_RETAINED:  # SOURCE or RENDERED: ``retain``, inlined
                if tail[1] == s0:
                    tail[1] = s1
                else:
                    tail = [s0, s1]
                    retained.append(tail)
            if d1 == d0:
                continue
            kind = names[run_kind]
            end = position + d1 - d0
            if kind == "separator":
                if last[4] == kind:
                    out[-1] = last = (last[0], end, -1, -1, kind)
                else:
                    last = (position, end, -1, -1, kind)
                    out.append(last)
            elif kind == "source" and last[4] == kind and last[3] == s0:
                out[-1] = last = (last[0], end, last[2], s1, kind)
            else:
                last = (position, end, s0, s1, kind)
                out.append(last)
            position = end
        if position > self.position:
            self.parts.append(text[runs[0][0] : runs[-1][1]])
            self.position = position

    def retain(self, start: int, end: int) -> None:
        if self.retained and self.retained[-1][1] == start:
            self.retained[-1][1] = end
        else:
            self.retained.append([start, end])

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def counted_parts(self, costs: Costs, text: str) -> list[Part]:
        """``text`` as parts: marked block ranges by their leaves, the rest plain."""
        parts: list[Part] = []
        cursor = 0
        for position, end, block, start, stop in self.marks:
            if position > cursor:
                parts.append(text[cursor:position])
            costs.block_parts(block, start, stop, parts)
            cursor = end
        if cursor < len(text):
            parts.append(text[cursor:])
        return parts


def _clip(block: Block, start: int, end: int) -> list[Run]:
    """The block's runs restricted to display ``[start, end)`` (verbatim runs cut exactly)."""
    runs = block.runs
    if len(runs) == 1:
        d0, _, s0, _, kind = runs[0]
        if kind == RunKind.SOURCE:
            return [(start, end, s0 + start - d0, s0 + end - d0, kind)]
    if start <= 0 and end >= len(block.text):
        # The whole block: every run but empty ones at its very edges, unchanged.
        if runs[0][1] > start and runs[-1][0] < end:
            return list(runs)  # runs are ordered and contiguous: no empty edge run
        return [run for run in runs if run[1] > start and run[0] < end]
    index = max(bisect_right(runs, (start, len(block.text) + 1)) - 1, 0)
    stop = bisect_left(runs, (end,))  # the first run starting at or after ``end``
    while index < stop and runs[index][1] <= start:
        index += 1
    if index >= stop:
        return []
    if stop - index == 1:
        return [_clip_run(runs[index], start, end)]
    # Runs tile the display in order, so only the first and the last can stick out of
    # the range; those between are kept as they are (a verbatim run's display and
    # source lengths are equal, so clipping one that lies inside changes nothing).
    clipped = [_clip_run(runs[index], start, end)]
    clipped.extend(runs[index + 1 : stop - 1])
    clipped.append(_clip_run(runs[stop - 1], start, end))
    return clipped


def _clip_run(run: Run, start: int, end: int) -> Run:
    """One run restricted to display ``[start, end)``: verbatim runs are cut exactly, and
    so are runs the display adds (no source to keep whole: a row border and the line
    break after it, ``" |\\n| "``, split between the rows it separates)."""
    d0, d1, s0, _, kind = run
    if kind == RunKind.SOURCE or kind == RunKind.GAP:
        x, y = max(d0, start), min(d1, end)
        return (x, y, s0 + x - d0, s0 + y - d0, kind)
    if s0 < 0:
        return (max(d0, start), min(d1, end), s0, s0, kind)
    return run


class Renderer:
    """Turns planned atoms into ``(content, metadata)`` for one document."""

    __slots__ = ("costs", "identity")

    def __init__(self, costs: Costs, identity: str) -> None:
        self.costs = costs
        self.identity = identity

    def render(
        self,
        atoms: Sequence[Atom],
        kind: str,
        *,
        optional: bool,
        overlap: Overlap | None = None,
    ) -> tuple[str, dict[str, Any]]:
        """Display text and metadata of the chunk made of ``atoms`` (not yet counted)."""
        content, metadata, _ = self.render_counted(atoms, kind, optional=optional, overlap=overlap)
        return content, metadata

    def render_counted(
        self,
        atoms: Sequence[Atom],
        kind: str,
        *,
        optional: bool,
        overlap: Overlap | None = None,
    ) -> tuple[str, dict[str, Any], list[Part]]:
        """``render``, plus parts joining to the display text for ``Costs.exact``."""
        layout = self.costs.layout
        blocks = layout.blocks
        segments: list[list[int]] = []
        for atom in atoms:
            if segments and segments[-1][0] == atom.block:
                segments[-1][2] = atom.end
            else:
                segments.append([atom.block, atom.start, atom.end])
        fast = self._slice(segments, optional=optional) if overlap is None else None
        if fast is not None:
            return self._finish(fast, segments, atoms, kind, [], None)
        display = _Display()
        context_entries: list[tuple[int, int, str]] = []
        first_block, first_start, _ = segments[0]
        pieces = [_clip(blocks[b], x, y) for b, x, y in segments]
        leading_space = self._trim(
            pieces, blocks[first_block], blocks[segments[-1][0]], segments[-1][2]
        )
        if overlap is not None:
            self._add(display, blocks[overlap.block], overlap.start, overlap.end, _OVERLAP)
            display.add(self._overlap_joiner(overlap, pieces[0]), -1, -1, "separator")
        contexts = self.costs.contexts(first_block, first_start, optional=optional)
        if contexts:
            self._contexts(display, blocks[first_block], contexts, context_entries)
            joiner = leading_space or ("" if display.parts[-1].endswith("\n") else "\n")
            display.add(joiner, -1, -1, "separator")
        for number, ((block, _, _), runs) in enumerate(zip(segments, pieces, strict=True)):
            entry = blocks[block]
            if number:
                if entry.gap_verbatim:
                    display.add(entry.gap, entry.start - len(entry.gap), entry.start, "source")
                else:
                    display.add(entry.gap, -1, -1, "separator")
            self._primary(display, entry, runs)
        last_block, _, last_end = segments[-1]
        trailing = (
            self.costs.splitter(last_block).trailing_context(last_end)
            if (last_end < len(blocks[last_block].text))
            else ()
        )
        if trailing:
            display.add("" if display.parts[-1].endswith("\n") else "\n", -1, -1, "separator")
            self._contexts(display, blocks[last_block], trailing, context_entries)
        text = display.text
        shown = _Shown(
            text,
            display.runs,
            [(a, b) for a, b in display.retained],
            display.counted_parts(self.costs, text),
        )
        return self._finish(shown, segments, atoms, kind, context_entries, overlap)

    def _slice(self, segments: list[list[int]], *, optional: bool) -> _Shown | None:
        """The common case in one slice: verbatim blocks, whitespace gaps, no context.

        Such a chunk is exactly ``content[start:end]``, mapped by one ``source`` run, and
        retains the units inside that range — found by bisection, not run by run.
        """
        costs = self.costs
        blocks = costs.layout.blocks
        first_block, first_start, _ = segments[0]
        last_block, _, last_end = segments[-1]
        for number, (block, _, _) in enumerate(segments):
            entry = blocks[block]
            if not entry.pure or (number and not entry.gap_verbatim):
                return None
        if first_start > 0 and costs.contexts(first_block, first_start, optional=optional):
            return None
        last = blocks[last_block]
        if last_end < len(last.text) and costs.splitter(last_block).trailing_context(last_end):
            return None
        start = _source_start(blocks[first_block], first_start)
        end = _source_end(last, last_end)
        if start >= end:
            return None
        retained = costs.layout.retained
        position = max(bisect_right(costs.retained_starts, start) - 1, 0)
        kept: list[tuple[int, int]] = []
        while position < len(retained) and retained[position][0] < end:
            interval = retained[position]
            low, high = interval
            if high > start:
                # The layout's own tuple when it lies inside: shared, not copied (memory).
                inside = low >= start and high <= end
                kept.append(interval if inside else (max(low, start), min(high, end)))
            position += 1
        content = costs.layout.content[start:end]
        parts: list[Part] = []
        cursor = start
        for block, x, y in segments:
            entry = blocks[block]
            low, high = max(entry.start + x, cursor), min(entry.start + y, end)
            if low >= high:
                continue
            if low > cursor:
                parts.append(costs.layout.content[cursor:low])
            costs.block_parts(block, low - entry.start, high - entry.start, parts)
            cursor = high
        if cursor < end:
            parts.append(costs.layout.content[cursor:end])
        return _Shown(content, [(0, end - start, start, end, "source")], kept, parts)

    @staticmethod
    def _trim(pieces: list[list[Run]], first_block: Block, last: Block, last_end: int) -> str:
        """Drop whitespace before the first and after the last shown run; return the former."""
        leading: list[str] = []
        first = pieces[0]
        while first and first[0][4] in _WHITESPACE_RUNS:
            run = first.pop(0)
            leading.append(first_block.text[run[0] : run[1]])
        tail = pieces[-1]
        # Labels after the last line break open what the cut left out (a bullet, a row's
        # "| "): dropped. A label on the last shown line closes it (a row's " |"): kept.
        # One label may hold both, across its line break (" |\n| " between the rows of a
        # table read inside Markdown): its part before the break is kept.
        labels = last_end < len(last.text)
        while tail:
            run = tail[-1]
            kind = run[4]
            if kind in _WHITESPACE_RUNS:
                if labels and "\n" in last.text[run[0] : run[1]]:
                    labels = False
            elif kind != RunKind.LABEL or not labels:
                break
            else:
                line = last.text.rfind("\n", run[0], run[1])
                if line > run[0]:
                    tail[-1] = (run[0], line, run[2], run[3], kind)
                    break
                if line == run[0]:
                    labels = False
            tail.pop()
        return "".join(leading)

    def _primary(self, display: _Display, block: Block, runs: list[Run]) -> None:
        text = block.text
        # C-level contiguity check: each run ends where the next starts.
        if runs and list(map(_END, runs[:-1])) == list(map(_START, runs[1:])):
            # Contiguous runs show block.text[first:last] verbatim, whatever their kinds.
            shown = runs[-1][1] - runs[0][0]
            display.marks.append(
                (display.position, display.position + shown, block.number, runs[0][0], runs[-1][1])
            )
            display.show(text, runs)
            return
        for d0, d1, s0, s1, kind in runs:
            if kind == RunKind.SOURCE:
                display.add(text[d0:d1], s0, s1, "source")
                display.retain(s0, s1)
            elif kind == RunKind.GAP:
                display.add(text[d0:d1], s0, s1, "source")
            elif kind == RunKind.RENDERED:
                display.add(text[d0:d1], s0, s1, "rendered")
                display.retain(s0, s1)
            else:
                display.add(text[d0:d1], -1, -1, "separator")

    def _add(self, display: _Display, block: Block, start: int, end: int, mode: int) -> None:
        """Repeat a display range of ``block``: verbatim runs keep their source."""
        kind = _VERBATIM_KIND[mode]
        for d0, d1, s0, s1, run_kind in _clip(block, start, end):
            if run_kind == RunKind.SOURCE:
                display.add(block.text[d0:d1], s0, s1, kind)
            else:  # repeated gaps and rendered text are shown, not claimed as source
                display.add(block.text[d0:d1], -1, -1, "separator")

    def _contexts(
        self,
        display: _Display,
        block: Block,
        contexts: Sequence[ContextRange],
        entries: list[tuple[int, int, str]],
    ) -> None:
        for number, context in enumerate(contexts):
            if number:
                between = block.text[contexts[number - 1].end : context.start]
                display.add(between if between.isspace() else "\n", -1, -1, "separator")
            mark = len(display.runs)
            self._add(display, block, context.start, context.end, _CONTEXT)
            # A separator always precedes a context, so its runs start a fresh run.
            entries.extend(
                (run[0], run[1], context.kind) for run in display.runs[mark:] if run[4] == "context"
            )

    def _overlap_joiner(self, overlap: Overlap, first_runs: list[Run]) -> str:
        block = self.costs.layout.blocks[overlap.block]
        end = _clip(block, overlap.start, overlap.end)[-1][3]
        start = next((run[2] for run in first_runs if run[2] >= 0), -1)
        if start == end:
            return ""
        between = self.costs.layout.content[end:start] if 0 <= end < start else ""
        return between if between and between.isspace() else "\n\n"

    def _finish(
        self,
        display: _Shown,
        segments: list[list[int]],
        atoms: Sequence[Atom],
        kind: str,
        context_entries: list[tuple[int, int, str]],
        overlap: Overlap | None,
    ) -> tuple[str, dict[str, Any], list[Part]]:
        layout = self.costs.layout
        blocks, sections = layout.blocks, layout.sections
        lineage = sections[blocks[segments[0][0]].section]
        section_ids: list[str] = []
        for block, _, _ in segments:
            node_id = sections[blocks[block].section].node_id
            if node_id is not None and (not section_ids or section_ids[-1] != node_id):
                section_ids.append(node_id)
        displayed = tuple(
            blocks[block].node_id
            for block, start, end in segments
            if blocks[block].kind == "heading" and start == 0 and end == len(blocks[block].text)
        )
        retained = tuple(display.retained)
        runs = display.runs
        content = display.text
        overlap_intervals: tuple[tuple[int, int], ...] = ()
        if overlap is not None:
            clipped = _clip(blocks[overlap.block], overlap.start, overlap.end)
            overlap_intervals = ((clipped[0][2], clipped[-1][3]),)
        metadata: dict[str, Any] = {
            "structure_version": STRUCTURE_VERSION,
            "document_id": layout.normalized.document.id,
            "section_ids": tuple(dict.fromkeys(section_ids)),
            "heading_ids": lineage.heading_ids,
            "heading_path": lineage.titles,
            "displayed_heading_ids": displayed,
            "embed_heading_path": self.costs.config.include_heading_path_in_embedding,
            "char_start": retained[0][0],
            "char_end": retained[-1][1],
            "retained_intervals": retained,
            "serialization_map": tuple(runs),
            "repeated_context": tuple(context_entries),
            "overlap_intervals": overlap_intervals,
            "embedding_token_count": 0,
            "overflow": False,
            "atomic_structure_loss": any(atom.loss for atom in atoms),
            "chunk_kind": kind,
            # A plain dict: chunk metadata must stay JSON-serializable.
            "structure_metadata": {
                "node_ids": tuple(blocks[block].node_id for block, _, _ in segments),
                "kinds": tuple(blocks[block].kind for block, _, _ in segments),
            },
            "engine_identity": self.identity,
        }
        return content, metadata, display.parts
