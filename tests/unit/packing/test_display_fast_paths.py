"""Fast paths of the layout and the renderer give exactly what the general paths give.

The hot loops take shortcuts for the common case — a serialized node whose runs tile
its one unit (no ``_absorb``), a whole block clipped (no run-by-run clipping), a block
shown in one slice (``_Display.show``). Each is checked here against the general
algorithm it replaces, on a real HTML page and on generated runs, value for value.
"""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrag.models import Document
from fastrag.normalization import NormalizerRegistry
from fastrag.normalization.model import CoverageUnit, NormalizedNode
from fastrag.packing import PackingConfig
from fastrag.packing._display import (
    RETAINED,
    Owner,
    Run,
    RunKind,
    _absorb,
    _clip_verbatim,
    _general,
    _rendered,
    _single,
    _tiled,
)
from fastrag.packing.leaves import Block, build_layout
from fastrag.packing.render import _clip, _Display
from tests._paths import CORPUS

WIKI_DUCK = CORPUS / "web" / "wiki_duck.html"


def _general_slot(runs: list[Run], low: int, high: int) -> tuple[int, int] | None:
    """The slot of unit ``[low, high)`` as ``_serialized``'s general path finds it."""
    absorbed = _absorb(runs, [(low, high)])
    if absorbed is None or absorbed != runs:
        return None  # holes were filled: the fast path must not claim this case
    inside = [run for run in absorbed if run[4] in RETAINED and low <= run[2] < high]
    if not inside:
        return None
    return min(run[0] for run in inside), max(run[1] for run in inside)


@pytest.fixture(scope="module")
def duck_blocks() -> tuple[Block, ...]:
    text = WIKI_DUCK.read_text(encoding="utf-8")
    document = Document("wiki_duck.html", "corpus", text, {"content_format": "html"})
    normalized = NormalizerRegistry().normalize(document)
    return build_layout(normalized, PackingConfig(max_tokens=512, target_tokens=400)).blocks


def test_tiled_slots_agree_with_the_general_path_on_a_real_page(
    duck_blocks: tuple[Block, ...],
) -> None:
    checked = 0
    for block in duck_blocks:
        runs = list(block.runs)
        for start, end, _ in block.slots:
            inside = [run for run in runs if start <= run[0] and run[1] <= end]
            sources = [(run[2], run[3]) for run in inside if run[4] in RETAINED]
            if not sources:
                continue
            low, high = min(s for s, _ in sources), max(e for _, e in sources)
            fast = _tiled(inside, low, high)
            if fast is not None:
                assert fast == _general_slot(inside, low, high)
                checked += 1
    assert checked > 50  # the page really exercises the fast path


_KINDS = st.sampled_from(RunKind.ALL)


@st.composite
def _runs(draw: st.DrawFn) -> tuple[list[Run], int, int]:
    """Display-contiguous runs over a unit, sometimes tiling it, sometimes not."""
    low = draw(st.integers(0, 5))
    source = low
    display = 0
    runs: list[Run] = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(_KINDS)
        width = draw(st.integers(0, 4))
        if kind in (RunKind.SOURCE, RunKind.RENDERED, RunKind.GAP):
            jump = draw(st.sampled_from([0, 0, 0, 1, -1]))
            s0 = max(source + jump, 0)
            s1 = s0 + (width if kind != RunKind.RENDERED else draw(st.integers(0, 4)))
            source = s1
            runs.append((display, display + width, s0, s1, kind))
        else:
            runs.append((display, display + width, -1, -1, kind))
        display += width
    high = draw(st.sampled_from([source, source + 1, max(source - 1, low)]))
    return runs, low, high


@settings(max_examples=400, deadline=None)
@given(case=_runs())
def test_tiled_never_disagrees_with_the_general_path(case: tuple[list[Run], int, int]) -> None:
    runs, low, high = case
    fast = _tiled(runs, low, high)
    if fast is not None:
        assert fast == _general_slot(runs, low, high)


def _owner(node: NormalizedNode) -> Owner:
    segments = [
        (r.display_start, r.display_end, r.source_start, r.source_end) for r in node.serialization
    ]
    return Owner(node.node_id, node.kind, node.text, segments)


def _serialized_nodes(text: str) -> list[tuple[Owner, CoverageUnit, str]]:
    document = Document("page.html", "corpus", text, {"content_format": "html"})
    normalized = NormalizerRegistry().normalize(document)
    units: dict[str, list[CoverageUnit]] = {}
    for unit in normalized.units:
        units.setdefault(unit.node_id, []).append(unit)
    return [
        (_owner(node), units[node.node_id][0], normalized.content)
        for node in normalized.nodes
        if node.serialization and len(units.get(node.node_id, ())) == 1
    ]


def test_single_unit_path_equals_the_general_path_on_a_real_page() -> None:
    """One pass (runs, holes filled, slot) gives exactly ``_general``'s runs and slots."""
    nodes = _serialized_nodes(WIKI_DUCK.read_text(encoding="utf-8"))
    taken = filled = 0
    for node, unit, content in nodes:
        fast = _single(node, unit.span.start, unit.span.end, content)
        if fast is None:
            continue
        taken += 1
        assert fast == _general(node, [(unit.span.start, unit.span.end, unit.node_id)], content)
        filled += any(run[4] == RunKind.RENDERED for run in fast[1])
    assert taken > 0.9 * len(nodes) and filled > 50


_PIECES = st.sampled_from(["a", "bc", " ", "\n", "  ", "\n\n", "&amp;", "<b>", "</b>", "x y"])


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_PIECES, min_size=1, max_size=25))
def test_single_unit_path_equals_the_general_path_on_generated_html(pieces: list[str]) -> None:
    """Inline tags, entities, collapsed spaces and line breaks inside one paragraph."""
    for node, unit, content in _serialized_nodes("<p>" + "".join(pieces) + "</p>"):
        fast = _single(node, unit.span.start, unit.span.end, content)
        if fast is not None:
            assert fast == _general(node, [(unit.span.start, unit.span.end, unit.node_id)], content)


def _shown_by_runs(display: _Display, text: str, runs: list[Run]) -> None:
    """The per-run rendering ``_Display.show`` replaces (``Renderer._primary``'s loop)."""
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


def _state(display: _Display) -> tuple[object, ...]:
    return (display.text, display.runs, display.retained, display.position)


@settings(max_examples=400, deadline=None)
@given(case=_runs(), lead=st.sampled_from(["", "x", "\n"]), lead_kind=_KINDS)
def test_show_equals_adding_run_by_run(
    case: tuple[list[Run], int, int], lead: str, lead_kind: int
) -> None:
    runs, _, _ = case
    text = "".join(chr(ord("a") + index % 26) for index in range(runs[-1][1]))
    fast, slow = _Display(), _Display()
    for display in (fast, slow):  # something before, so that runs may coalesce with it
        _shown_by_runs(display, lead, [(0, len(lead), 0, len(lead), lead_kind)])
    fast.show(text, runs)
    _shown_by_runs(slow, text, runs)
    assert _state(fast) == _state(slow)


def _clipped_run_by_run(block: Block, start: int, end: int) -> list[Run]:
    """``_clip``'s general loop, for any range of the block."""
    clipped: list[Run] = []
    for d0, d1, s0, s1, kind in block.runs:
        if d1 <= start or d0 >= end:
            continue
        if kind in (RunKind.SOURCE, RunKind.GAP):
            x, y = max(d0, start), min(d1, end)
            clipped.append((x, y, s0 + x - d0, s0 + y - d0, kind))
        elif s0 < 0:  # added by the display: no source to keep whole
            clipped.append((max(d0, start), min(d1, end), s0, s1, kind))
        else:
            clipped.append((d0, d1, s0, s1, kind))
    return clipped


def test_whole_block_clip_equals_the_general_clip(duck_blocks: tuple[Block, ...]) -> None:
    many = [block for block in duck_blocks if len(block.runs) > 1]
    assert len(many) > 20
    for block in many:
        assert _clip(block, 0, len(block.text)) == _clipped_run_by_run(block, 0, len(block.text))
        assert all(a[1] <= b[0] for a, b in pairwise(block.runs))


def test_partial_clip_equals_the_general_clip(duck_blocks: tuple[Block, ...]) -> None:
    """Any display range, cut anywhere: only the edge runs are clipped, the rest kept."""
    many = [block for block in duck_blocks if len(block.runs) > 3]
    assert len(many) > 20
    checked = 0
    for block in many:
        size = len(block.text)
        runs = block.runs
        edges = sorted({0, 1, size // 3, size // 2, size - 1, size})
        edges += [runs[len(runs) // 2][0], runs[1][1], runs[-2][0] + 1]
        for start in edges:
            for end in edges:
                if start <= end:
                    assert _clip(block, start, end) == _clipped_run_by_run(block, start, end)
                    checked += 1
    assert checked > 1000


class _CountingSpans(list[tuple[int, int]]):
    """Unit spans that count how many of them a function looks at."""

    reads = 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        type(self).reads += 1
        return super().__getitem__(index)

    def __iter__(self):  # type: ignore[no-untyped-def]
        for index in range(len(self)):
            yield self[index]


def test_a_segment_looks_only_at_the_units_it_touches() -> None:
    # A table read from a Markdown HTML block is one node of thousands of units: a
    # segment that scanned every unit made packing quadratic (2 MB: 126 s, now 4 s).
    spans = _CountingSpans((10 * n, 10 * n + 5) for n in range(10_000))
    content = "x" * 100_000
    _CountingSpans.reads = 0
    runs = _clip_verbatim(0, 5, 99_990, content, spans)
    assert runs == [(0, 5, 99_990, 99_995, RunKind.SOURCE)]
    assert _rendered(0, 3, 50_000, 50_003, spans, "abc")[2:4] == (50_000, 50_003)
    assert _CountingSpans.reads < 100  # a bisection, not 10,000 reads
