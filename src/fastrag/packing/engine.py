"""``pack``: the packing engine's one entry point, a pure function of its inputs.

``(NormalizedDocument, Tokenizer, PackingConfig) -> ((content, metadata), …)``: no I/O,
no cache, no async, no logging of text. The stages, each in its own module:

1. ``leaves`` — blocks in source order with display runs and lineage, in windows
   (``windows.build_layouts``) that stages 2-4 handle one after the other: the same
   chunks as the whole layout at once, with a window's worth of working state;
2. ``costs.Costs`` — every block counted once, batched; joins, prefixes, contexts;
3. ``planner.Planner`` — sections kept whole when they fit, else packed toward the
   target (``merge``), oversized blocks cut by their splitter (``refine``, ``split/``);
4. ``finish.Finisher`` — each chunk rendered (``render``), overlap added (``overlap``),
   counted exactly once on its complete embedding text, repaired if over budget.

``engine_identity`` names everything that determines the output — the engine version,
the configuration, the tokenizer and the normalizer — and is stored in every chunk, so
chunk ids and caches change whenever any of them does.

``refinements`` (``semantic_mode="llm"``) carry boundaries a chat model already chose —
the caller asks the model (``refinable.refinement_requests`` says which paragraphs);
the engine only prefers those boundaries and stays pure and synchronous.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import Any, Final

from fastrag.normalization.model import NormalizedDocument
from fastrag.packing.config import PackingConfig
from fastrag.packing.costs import Costs
from fastrag.packing.finish import Finisher
from fastrag.packing.leaves import Layout
from fastrag.packing.merge import Plan
from fastrag.packing.planner import Planner
from fastrag.packing.refine import Refiner
from fastrag.packing.render import Renderer
from fastrag.packing.windows import WINDOW_CHARACTERS, build_layouts
from fastrag.tokenization.protocol import Tokenizer

__all__ = ["ENGINE_VERSION", "Piece", "engine_identity", "pack"]

ENGINE_VERSION: Final = "fastrag-packing:27"
"""Bump whenever the engine's output for the same inputs changes."""

Piece = tuple[str, Mapping[str, Any]]


def engine_identity(config: PackingConfig, tokenizer: Tokenizer, normalizer_identity: str) -> str:
    """A sha256 naming the engine version, configuration, tokenizer and normalizer."""
    payload = {
        "engine": ENGINE_VERSION,
        "config": config.identity(),
        "tokenizer": tokenizer.identity,
        "normalizer": normalizer_identity,
    }
    encoded = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def pack(
    normalized: NormalizedDocument,
    tokenizer: Tokenizer,
    config: PackingConfig,
    *,
    normalizer_identity: str | None = None,
    refinements: Mapping[str, tuple[int, ...]] | None = None,
    window: int | None = WINDOW_CHARACTERS,
) -> tuple[Piece, ...]:
    """Pack one normalized document into structural chunks, in source order.

    Every chunk's complete embedding text (``build_embedding_text``) counts at most
    ``config.max_tokens`` under ``tokenizer`` unless it carries ``overflow=True``
    (``preserve_and_flag`` only); the chunks' retained intervals partition the
    document's coverage units exactly once. ``normalizer_identity`` (default: the
    tree's format name) enters ``engine_identity``. ``refinements`` maps a paragraph's
    node id to source offsets a chat model chose (used only with ``semantic_mode="llm"``;
    offsets that are not sentence starts of that paragraph are ignored). Raises
    ``ChunkingError`` when ``split_with_context`` cannot make some content fit.
    ``window`` (source characters, ``None``: the whole document) bounds the working
    state, not the output: the chunks are the same for every value (``build_layouts``).
    """
    identity = engine_identity(
        config, tokenizer, normalized.format if normalizer_identity is None else normalizer_identity
    )
    memo: dict[str, int] = {}  # counts of short texts, shared by the windows
    pieces: list[Piece] = []
    refined = refinements if config.refined else None
    layouts = build_layouts(normalized, config, refined, window=window, seams=True)
    layout = next(layouts, None)
    while layout is not None:
        if len(memo) > _MEMO_ENTRIES:
            memo.clear()
        finished = _pack_window(layout, tokenizer, config, identity, memo, pieces)
        try:  # the window's working state is gone before the next one is built
            layout = layouts.send(finished)
        except StopIteration:
            layout = None
    return tuple(pieces)


def _pack_window(
    layout: Layout,
    tokenizer: Tokenizer,
    config: PackingConfig,
    identity: str,
    memo: dict[str, int],
    pieces: list[Piece],
) -> int:
    """Plan ``layout`` and finish its chunks into ``pieces``; how many of its blocks
    were finished (all but those after the cut of a window that continues)."""
    costs = Costs(layout, tokenizer, config, memo=memo)
    refiner = Refiner(costs)
    planner = Planner(costs, refiner)
    plans = planner.plan()
    costs.planned()
    finished = len(layout.blocks)
    if layout.continues:
        finished, plans = _before(plans, planner.cut())
    finisher = Finisher(costs, refiner, Renderer(costs, identity))
    pieces.extend(finisher.finish(_drained(plans)))
    return finished


def _before(plans: list[Plan], cut: int) -> tuple[int, list[Plan]]:
    """``cut`` and the plans before it, which end before block ``cut`` while the next
    opens it, as ``Planner.cut`` proves; ``(0, [])`` (finish nothing, carry it all)
    should that ever not be so."""
    for index, plan in enumerate(plans):
        first = plan.atoms[0]
        if first.block >= cut:
            opens = first.block == cut and first.start == 0 and index > 0
            if opens and plans[index - 1].atoms[-1].block < cut:
                return cut, plans[:index]
            break
    return 0, []


_MEMO_ENTRIES: Final = 16_384
"""Memoized counts after which a new window starts the memo over.

The texts that repeat across windows (separators, list markers, short lines) come back
within a window; the rest, kept for the whole document, grew with it (a third of the
input's size at 10 MB, alive until the last chunk). Counts are the same either way.
"""


def _drained(plans: list[Plan]) -> Iterator[Plan]:
    """The plans in order, each let go of once it is handed out.

    Peak memory: the finished chunks pile up while the plans are rendered, so plans
    already rendered should not stay alive beside them (about 1x the input on large
    Markdown documents).
    """
    plans.reverse()
    while plans:
        yield plans.pop()
