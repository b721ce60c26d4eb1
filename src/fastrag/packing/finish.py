"""Exactness: count every final chunk once, repair the ones over budget.

Plans were made on sums, which need not be exact (counts are not additive; a custom
tokenizer may be arbitrary). Each planned chunk is rendered and its complete embedding
text counted exactly once. The rare chunk over ``max_tokens`` is repaired alone: the
longest prefix of its atoms that fits is found by bisection on exact counts (each probe
a chunk-sized text, O(log n) probes), emitted, and the rest is handled the same way.
A rest under ``min_preferred_tokens`` that the next plan continues (the same block: the
plan's estimate of a dense stretch fell short) is not emitted alone but joins that plan;
and where a repair would emit such a small chunk before the rest of its block, the next
atom is cut so that its first piece can join it.
Headings travel with the atom after them; a run of headings that overflows by itself
(nothing between them) is cut between headings rather than refused. An
atom that cannot fit even alone — with its heading path, table header or code fence —
is refined one level further with a smaller budget; every refinement cuts an atom into
strictly smaller ranges, so the loop ends. When nothing is left to cut, the policy
decides: ``split_with_context`` raises ``ChunkingError`` naming the node and the
numbers, ``preserve_and_flag`` emits the piece with ``overflow=True``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from fastrag.exceptions import ChunkingError
from fastrag.packing.chunk_metadata import ChunkMetadata
from fastrag.packing.contract import STRUCTURE_VERSION, embedding_prefix
from fastrag.packing.costs import Costs
from fastrag.packing.merge import SPLIT, Plan, plan_of
from fastrag.packing.overlap import find_overlap
from fastrag.packing.refine import Atom, Budget, Refiner
from fastrag.packing.render import Overlap, Renderer

__all__ = ["Chunk", "Finisher"]

Chunk = tuple[str, Mapping[str, Any]]

_Rendered = tuple[str, dict[str, Any], int]


class Finisher:
    """Renders, counts and (if needed) repairs the planned chunks of one document."""

    __slots__ = ("_prefixes", "costs", "refiner", "renderer")

    def __init__(self, costs: Costs, refiner: Refiner, renderer: Renderer) -> None:
        self.costs = costs
        self.refiner = refiner
        self.renderer = renderer
        self._prefixes: dict[tuple[tuple[str, ...], tuple[str, ...]], str] = {}
        """``embedding_prefix`` by (heading ids, displayed heading ids): within one
        document the ids determine the titles, and most chunks share a few paths."""

    def finish(self, plans: Iterable[Plan]) -> Iterator[Chunk]:
        previous: Sequence[Atom] = ()
        released = 0
        small = self.costs.config.min_preferred_tokens
        held: tuple[Sequence[Atom], _Rendered] | None = None
        for plan in plans:
            if held is not None:
                atoms, rendered = held
                held = None
                last, following = atoms[-1], plan.atoms[0]
                if last.block == following.block and last.end == following.start:
                    # The small rest of a repaired plan, and the next plan continues the
                    # same block: the two become one plan (repaired again if they overflow)
                    # instead of leaving the rest as a chunk of its own.
                    plan = plan_of(self.costs, [*atoms, *plan.atoms], SPLIT)
                else:
                    yield self._chunk(rendered, False)
                    previous = atoms
            emitted = self._emit(plan, previous)
            for atoms, rendered, overflow, repaired in emitted:
                if repaired and not overflow and rendered[2] < small:
                    held = atoms, rendered  # always the plan's last chunk
                    continue
                yield self._chunk(rendered, overflow)
                previous = atoms
                # Chunks come in source order and the next one looks back only at this
                # one (overlap): blocks before its first are done with.
                first = atoms[0].block
                if first > released:
                    self.costs.release(released, first)
                    released = first
        if held is not None:
            yield self._chunk(held[1], False)

    @staticmethod
    def _chunk(rendered: _Rendered, overflow: bool) -> Chunk:
        content, metadata, count = rendered
        metadata["embedding_token_count"] = count
        metadata["overflow"] = overflow
        return content, ChunkMetadata(metadata)

    def _render(
        self,
        atoms: Sequence[Atom],
        kind: str,
        overlap: Overlap | None,
        estimate: int | None = None,
    ) -> _Rendered:
        first = atoms[0]
        if estimate is None:
            estimate = plan_of(self.costs, atoms, kind).total
        optional = self.costs.include_optional(estimate, first.block, first.start)
        content, metadata, parts = self.renderer.render_counted(
            atoms, kind, optional=optional, overlap=overlap
        )
        # Exactly count(build_embedding_text(content, metadata)): the prefix plus the
        # content's parts, re-encoding only the windows around their joins.
        key = (metadata["heading_ids"], metadata["displayed_heading_ids"])
        prefix = self._prefixes.get(key)
        if prefix is None:
            prefix = self._prefixes[key] = embedding_prefix(metadata)
        count = self.costs.exact(prefix, parts)
        return content, metadata, count

    def _emit(
        self, plan: Plan, previous: Sequence[Atom]
    ) -> Iterator[tuple[Sequence[Atom], _Rendered, bool, bool]]:
        """The plan's chunks: (atoms, rendering, overflow, whether it is the rest a
        repair left at the plan's end)."""
        limit = self.costs.config.max_tokens
        atoms = plan.atoms
        overlap = find_overlap(self.costs, previous, atoms) if previous else None
        if overlap is not None:
            rendered = self._render(atoms, plan.kind, overlap, plan.total)
            if rendered[2] <= limit:
                yield atoms, rendered, False, False
                return
        rendered = self._render(atoms, plan.kind, None, plan.total)
        if rendered[2] <= limit:
            yield atoms, rendered, False, False
            return
        pending: tuple[Sequence[Atom], _Rendered, bool] | None = None
        several = False
        for repaired in self._repair(list(atoms), rendered):
            if pending is not None:
                yield *pending, False
                several = True
            pending = repaired
        if pending is not None:
            yield *pending, several

    def _attached(self, atom: Atom) -> bool:
        block = self.costs.layout.blocks[atom.block]
        return block.behaviour.attach_forward and atom.end == len(block.text)

    def _repair(
        self, atoms: list[Atom], failed: _Rendered
    ) -> Iterator[tuple[Sequence[Atom], _Rendered, bool]]:
        """Emit ``atoms`` as the fewest prefix chunks that each fit; see the module doc."""
        limit = self.costs.config.max_tokens
        small = self.costs.config.min_preferred_tokens
        first = 0
        widened = -1  # the last chunk start whose next atom _fill was asked to cut
        whole_failed: _Rendered | None = failed
        while first < len(atoms):
            if whole_failed is None:
                rendered = self._render(atoms[first:], SPLIT, None)
                if rendered[2] <= limit:
                    yield atoms[first:], rendered, False
                    return
            whole_failed = None
            stop = first + 1
            while stop < len(atoms) and self._attached(atoms[stop - 1]):
                stop += 1
            smallest = self._render(atoms[first:stop], SPLIT, None)
            lead: _Rendered | None = None  # the attached atoms without the one they precede
            if smallest[2] > limit and stop - first > 1:
                lead = self._render(atoms[first : stop - 1], SPLIT, None)
                if lead[2] > limit:
                    # The attached atoms overflow by themselves (a run of headings with no
                    # body between them): attachment cannot hold, cut between them.
                    fit = self._longest_fit(atoms, first, first + 1, stop - 2)
                    if fit is not None:
                        yield atoms[first : fit[0]], fit[1], False
                        first = fit[0]
                        continue
                    stop, lead = first + 1, None  # not even the first alone: cut inside it
                    smallest = self._render(atoms[first:stop], SPLIT, None)
            if smallest[2] > limit:
                refined = self._shrink(atoms[stop - 1], smallest[2])
                if refined is not None:
                    atoms[stop - 1 : stop] = refined
                    continue
                if lead is not None:  # headings whose first body piece cannot join them
                    yield atoms[first : stop - 1], lead, False
                    first = stop - 1
                    continue
                self._unfixable(atoms[stop - 1], smallest[2])
                yield atoms[first:stop], smallest, True
                first = stop
                continue
            fit = self._longest_fit(atoms, first, stop + 1, len(atoms) - 1)
            good, good_end = (fit[1], fit[0]) if fit is not None else (smallest, stop)
            end = good_end
            while end > stop and self._attached(atoms[end - 1]):
                end -= 1
            if end != good_end:
                shorter = self._render(atoms[first:end], SPLIT, None)
                if shorter[2] <= limit:
                    good, good_end = shorter, end
            if good[2] < small and good_end < len(atoms) and widened < first:
                widened = first
                refined = self._fill(atoms[good_end - 1], atoms[good_end], limit - good[2])
                if refined is not None:
                    atoms[good_end : good_end + 1] = refined
                    continue
            yield atoms[first:good_end], good, False
            first = good_end

    def _longest_fit(
        self, atoms: list[Atom], first: int, low: int, high: int
    ) -> tuple[int, _Rendered] | None:
        """The largest ``end`` in ``[low, high]`` whose ``atoms[first:end]`` fits, with its
        rendering (bisected on exact counts: a longer run never counts less), or None."""
        limit = self.costs.config.max_tokens
        found: tuple[int, _Rendered] | None = None
        while low <= high:
            middle = (low + high) // 2
            probe = self._render(atoms[first:middle], SPLIT, None)
            if probe[2] <= limit:
                found, low = (middle, probe), middle + 1
            else:
                high = middle - 1
        return found

    def _fill(self, last: Atom, following: Atom, room: int) -> list[Atom] | None:
        """Cut ``following`` so that its first piece may join a small chunk ending with
        ``last``, when both are ranges of one block (the plan's estimate of the block's
        text fell short, and the small chunk is what a repair left): pieces about ``room``
        tokens, scaled by how far the atom's estimate is from its exact count."""
        if following.block != last.block or following.start != last.end:
            return None
        counted = self._render([following], SPLIT, None)[2]
        budget = following.cost * room // max(counted, 1) - 1
        if budget < 1:
            return None
        refined = self.refiner.refine(following, Budget(fixed=budget))
        return refined if len(refined) > 1 else None

    def _shrink(self, atom: Atom, counted: int) -> list[Atom] | None:
        """Cut ``atom`` smaller than it is, in proportion to how far over budget it was."""
        limit = self.costs.config.max_tokens
        budget = max(1, min(atom.cost - 1, atom.cost * limit // max(counted, 1) - 1))
        refined = self.refiner.refine(atom, Budget(fixed=budget))
        if len(refined) < 2:
            return None
        return refined

    def _unfixable(self, atom: Atom, counted: int) -> None:
        """Nothing is left to cut: flag the piece, or raise naming it."""
        costs = self.costs
        if costs.config.flag_overflow:
            return
        block = costs.layout.blocks[atom.block]
        lineage = costs.layout.sections[block.section]
        prefix = embedding_prefix(
            {
                "structure_version": STRUCTURE_VERSION,
                "embed_heading_path": costs.config.include_heading_path_in_embedding,
                "heading_ids": lineage.heading_ids,
                "heading_path": lineage.titles,
                "displayed_heading_ids": (),
            }
        )
        context = costs.context_cost(
            atom.block, costs.contexts(atom.block, atom.start, optional=False)
        )
        # The piece may itself be the context repeated in every later piece (a table's
        # header rows): it is never cut, and only dropping the repetition helps.
        repeated = [
            found
            for found in costs.contexts(atom.block, len(block.text), optional=False)
            if found.start < atom.end and atom.start < found.end
        ]
        why = (
            f" (it is the {repeated[0].kind.replace('_', ' ')}, repeated as context in every "
            "other piece of the node, so it is never cut)"
            if repeated
            else ""
        )
        relax = {"table": "preserve_table_rows", "code": "preserve_code_blocks"}.get(block.kind)
        raise ChunkingError(
            f"document {costs.layout.normalized.document.id!r}: node {block.node_id!r} "
            f"({block.kind}) cannot be packed within max_tokens={costs.config.max_tokens}: "
            f"its smallest piece [{atom.start}, {atom.end}) of the node's display counts "
            f"{counted} tokens with its mandatory context (heading-path prefix "
            f"{costs.count(prefix) if prefix else 0} tokens, repeated structure ~{context} "
            f"tokens) and cannot be cut further{why}; raise max_tokens, set "
            f"include_heading_path_in_embedding=False, "
            + (f"set {relax}=False to cut it as plain lines, " if relax and repeated else "")
            + "or use oversized_block_policy='preserve_and_flag' to keep it whole and flagged"
        )
