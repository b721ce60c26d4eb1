"""Planning: which blocks (or pieces of blocks) go together, section by section.

The section tree is walked top-down. A section (heading, body and subsections) whose
estimated cost fits ``max_tokens`` becomes one chunk. Otherwise its direct blocks are
packed toward the target (``merge.pack_atoms``; oversized blocks are first refined by
their splitter), each subsection is planned the same way, and small adjacent results
are merged (``merge.merge_plans``) — never across top-level sections unless
``allow_cross_top_level_merge``. A heading with a body before its subsections hands
itself on to what follows, so it is never stranded at the end of a chunk. A section
holding nothing but its heading has no topic to keep apart, across top-level sections
too: its heading joins the chunk before it when that has room (so the next chunk's
heading path stays its own), else goes on to what follows; it is never a chunk alone
unless it is all there is at the end. A document's preamble (the blocks before its first
section) that costs less than ``min_preferred_tokens`` — a README's logo line, a
reference manual's rule label above its title — opens the first section's chunk the
same way instead of standing alone (that chunk's heading path is then the root's).

With ``preserve_heading_hierarchy=False`` each top-level section is packed as one flat
run of blocks instead (subsection starts are still preferred boundaries). A document of
nothing but headings plans no chunk at all (``hierarchy_only``, see the validator).

A window that continues (``windows.build_layouts``) is planned as if its open sections
ended with it; ``cut`` then says up to which of its seams those plans are the whole
document's (see there).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from fastrag.packing.blocks import Strength
from fastrag.packing.costs import Costs
from fastrag.packing.merge import (
    MERGED,
    SECTION,
    SPLIT,
    Plan,
    fit_together,
    merge_plans,
    pack_atoms,
    plan_of,
)
from fastrag.packing.refine import Atom, Budget, Refiner, whole_atom

__all__ = ["Planner"]


class Planner:
    """Plans the chunks of one document from its layout and costs."""

    __slots__ = ("_broken", "_firsts", "_seams", "costs", "refiner")

    def __init__(self, costs: Costs, refiner: Refiner) -> None:
        self.costs = costs
        self.refiner = refiner
        self._firsts: dict[int, Plan] = {}
        """The first plan of the section opening at each seam (``cut``)."""
        self._broken: set[int] = set()
        """Seams the plans may cross (``cut``)."""
        self._seams = frozenset(costs.layout.seams)

    def cut(self) -> int:
        """How many blocks of a window that continues are planned as in the whole
        document: up to its last seam that holds, or its last boundary (0: none).

        Plans before a seam S, where section T opens, are the whole document's if no
        plan crosses S in the whole document's planning, and then the rest plans alone
        from S on. Checked while planning, for T and each open section O around it:

        * O is not planned whole in the window (then S would be inside a plan): its part
          here does not fit, so neither does all of it (counts only add up), and a later
          window does not try it (``continued``).
        * No heading is handed on to T (``windows`` offers no seam right after a
          heading; checked all the same).
        * T ends in the window, so its first plan is the whole document's, and starts
          at S.
        * Wherever plans merge (T's parent and every O), T's first plan does not fit
          with the plan before S (``fit_together``): nor does anything it grows into.

        A boundary always holds (``windows``).
        """
        layout = self.costs.layout
        floor = layout.boundaries[-1] if layout.boundaries else 0
        for seam in reversed(layout.seams):
            if seam <= floor:
                break
            if seam in self._firsts and seam not in self._broken:
                return seam
        return floor

    def plan(self) -> list[Plan]:
        count = len(self.costs.layout.blocks)
        if self._bare(0, count):
            return []  # empty, headings only, or whitespace only: no body to embed
        plans, leftover = self._section(0, 0, count, ())
        plans = self._settle(plans, leftover) if leftover else plans
        return self._without_blank(plans)

    def _shows(self, plan: Plan) -> bool:
        """Whether ``plan`` shows any text."""
        blocks = self.costs.layout.blocks
        for atom in plan.atoms:
            block = blocks[atom.block]
            if block.blank:
                continue
            # A whole block that is not blank shows text by definition: no need to
            # build its cut site (what ``shows_text`` would consult) just to ask.
            if atom.start == 0 and atom.end == len(block.text):
                return True
            if self.costs.site(atom.block).shows_text(atom.start, atom.end):
                return True
        return False

    def _without_blank(self, plans: list[Plan]) -> list[Plan]:
        """Join every plan that shows no text to its neighbour (it would vanish alone)."""
        kept: list[Plan] = []
        waiting: list[Atom] = []
        for plan in plans:
            if not self._shows(plan):
                if kept:
                    last = kept[-1]
                    kept[-1] = plan_of(self.costs, [*last.atoms, *plan.atoms], MERGED)
                else:
                    waiting.extend(plan.atoms)
                continue
            if waiting:
                plan = plan_of(self.costs, [*waiting, *plan.atoms], MERGED)
                waiting = []
            kept.append(plan)
        return kept

    def _child(self, section: int, block: int) -> int | None:
        """The child section of ``section`` that holds ``block`` (None: a direct block)."""
        layout = self.costs.layout
        depth = layout.sections[section].depth
        chain = layout.sections[layout.blocks[block].section].chain
        if len(chain) > depth + 1 and chain[depth] == section:
            return chain[depth + 1]
        return None

    def _section(
        self, section: int, first: int, end: int, lead: tuple[int, ...]
    ) -> tuple[list[Plan], tuple[int, ...]]:
        """Plans for blocks ``[first, end)`` of ``section``, and headings left over."""
        if first >= end:
            return [], lead
        costs, config = self.costs, self.costs.config
        blocks = costs.layout.blocks
        begin = lead[0] if lead else first
        crossing = config.allow_cross_top_level_merge
        if section != 0 and self._bare(first, end):
            # A section that holds nothing but its heading (gtk-doc's empty "Description",
            # a README's "## License" whose badge was dropped) has no topic of its own to
            # keep apart: its heading joins the chunk before it (``_join_back``) or goes on
            # to what follows, even across top-level sections, instead of becoming a chunk
            # of one heading.
            return [], (*lead, *range(first, end))
        seams = self._seams_in(first, end)
        continued = section in costs.layout.continued
        if section != 0 or crossing:
            whole = not continued and config.preserve_heading_hierarchy
            if whole and self._fits(begin, end):
                atoms = [whole_atom(costs, b, Strength.BLOCK) for b in range(begin, end)]
                return [plan_of(costs, atoms, SECTION)], ()
            if section != 0 and not config.preserve_heading_hierarchy:
                return self._blocks(range(begin, end), single=SPLIT), ()
        plans: list[Plan] = []
        pending = lead
        position = first
        while position < end:
            child = self._child(section, position)
            if child is not None:
                child_end = max(min(self.costs.layout.ranges[child][1], end), position + 1)
                handed = pending
                made, pending = self._section(child, position, child_end, pending)
                if position in self._seams:
                    self._opened(position, child, handed, made)
                if not made and pending and not handed and plans:
                    plans, pending = self._join_back(plans, pending)  # an empty section
                position = child_end
            else:
                stop = position + 1
                while stop < end and self._child(section, stop) is None:
                    stop += 1
                run = (*pending, *range(position, stop))
                position = stop
                if stop < end and (
                    all(blocks[b].behaviour.attach_forward for b in run)
                    or (section == 0 and self._small(run))
                ):
                    # A heading with no body before its subsections; or a document's
                    # preamble too small to stand alone (a README's logo line, a
                    # manual's rule label before its title): it opens the next chunk.
                    pending = run
                    continue
                made = self._blocks(run, single=SECTION if section == 0 else SPLIT)
                pending = ()
            if made:
                made[0] = made[0]._replace(mergeable=True)
                plans.extend(made)
        top_level = costs.layout.sections[section].depth <= 1
        if pending and (section == 0 or (top_level and not crossing)):
            plans, pending = self._settle(plans, pending), ()
        if config.merge_small_sections and (section != 0 or crossing):
            plans = merge_plans(costs, plans)
            if seams:
                self._check_merges(plans, seams)
        return plans, pending

    def _seams_in(self, first: int, end: int) -> Sequence[int]:
        """The window's seams strictly inside blocks ``[first, end)``."""
        seams = self.costs.layout.seams
        if not seams:
            return ()
        return seams[bisect_right(seams, first) : bisect_left(seams, end)]

    def _opened(self, seam: int, section: int, handed: tuple[int, ...], made: list[Plan]) -> None:
        """Section ``section`` opened at ``seam`` with plans ``made``: remember its first
        plan, or that the seam does not hold (see ``cut``)."""
        first = made[0].atoms[0] if made else None
        if (
            handed
            or first is None
            or first.block != seam
            or first.start != 0
            or section in self.costs.layout.unfinished
        ):
            self._broken.add(seam)
        else:
            self._firsts[seam] = made[0]

    def _check_merges(self, merged: list[Plan], seams: Sequence[int]) -> None:
        """After a merge: each seam must still start a plan, which its section's first
        plan would not have fitted with the plan before (see ``cut``)."""
        seams = [seam for seam in seams if seam not in self._broken]
        if not seams:
            return
        starts = {
            plan.atoms[0].block: index
            for index, plan in enumerate(merged)
            if plan.atoms[0].start == 0
        }
        for seam in seams:
            index = starts.get(seam)
            first = self._firsts.get(seam)
            if index is None or first is None:
                self._broken.add(seam)  # crossed below, or where the section opened
            elif index > 0 and fit_together(self.costs, merged[index - 1], first):
                self._broken.add(seam)

    def _bare(self, first: int, end: int) -> bool:
        """Whether blocks ``[first, end)`` are headings and blank space, nothing else."""
        blocks = self.costs.layout.blocks
        return all(blocks[b].kind == "heading" or blocks[b].blank for b in range(first, end))

    def _small(self, run: Sequence[int]) -> bool:
        """Whether consecutive blocks ``run`` cost less than ``min_preferred_tokens``."""
        costs = self.costs
        return costs.range_cost(run[0], run[-1] + 1) < costs.min_preferred

    def _fits(self, begin: int, end: int) -> bool:
        costs = self.costs
        text = costs.layout.blocks[begin].text
        return costs.start(begin, 0, len(text)) + costs.range_cost(begin, end) <= costs.hard

    def _blocks(self, run: Sequence[int], *, single: str) -> list[Plan]:
        """Pack a run of consecutive blocks, refining the ones too large to travel whole."""
        costs = self.costs
        blocks = costs.layout.blocks
        atoms: list[Atom] = []
        previous_section = -1
        for block in run:
            section = blocks[block].section
            strength = Strength.SECTION if atoms and section != previous_section else Strength.BLOCK
            previous_section = section
            atom = whole_atom(costs, block, strength)
            if atom.cost + costs.start(block, atom.start, atom.end) > costs.hard:
                atoms.extend(self.refiner.refine(atom))
            else:
                atoms.append(atom)
        plans = pack_atoms(costs, self._attach(atoms), SPLIT)
        if len(plans) == 1 and single != SPLIT:
            plans[0] = plans[0]._replace(kind=single)
        return plans

    def _attached(self, atom: Atom) -> bool:
        block = self.costs.layout.blocks[atom.block]
        return block.behaviour.attach_forward and atom.end == len(block.text)

    def _attach(self, atoms: list[Atom]) -> list[Atom]:
        """Refine the first body atom after headings so that headings and it fit together."""
        costs = self.costs
        result: list[Atom] = []
        index = 0
        while index < len(atoms):
            if not self._attached(atoms[index]):
                result.append(atoms[index])
                index += 1
                continue
            stop = index
            while stop < len(atoms) and self._attached(atoms[stop]):
                stop += 1
            result.extend(atoms[index:stop])
            if stop < len(atoms):
                head = plan_of(costs, atoms[index : stop + 1], SPLIT)
                body = atoms[stop]
                if head.total > costs.hard:
                    alone = costs.start(body.block, body.start, body.end)
                    alone += costs.end(body.block, body.end)
                    extra = head.total - body.cost - alone
                    result.extend(self.refiner.refine(body, Budget(extra=max(extra, 0))))
                    stop += 1
            index = stop
        return result

    def _settle(self, plans: list[Plan], leftover: tuple[int, ...]) -> list[Plan]:
        """Trailing headings with nothing after them: join the last chunk, or stand alone."""
        plans, left = self._join_back(plans, leftover)
        if not left:
            return plans
        costs = self.costs
        tail = [whole_atom(costs, block, Strength.BLOCK) for block in left]
        whole = plan_of(costs, tail, SECTION)
        if whole.total <= costs.hard:
            return [*plans, whole]
        return [*plans, *self._headings(tail)]

    def _headings(self, atoms: list[Atom]) -> list[Plan]:
        """Plans for a run of headings with no body after them, too long for one chunk.

        Generated API pages end this way (rustdoc's "Implementors": hundreds of ``impl``
        headings, each over a ``type Output`` heading, and nothing else). Every heading
        attaches forward, so ``pack_atoms`` would see no boundary it may use; here each
        chunk fills up to the target and ends before the shallowest heading it can,
        the latest among equals, so an ``impl`` stays with the headings under it. A
        heading too long for a chunk alone travels alone (the finisher cuts it). Each
        chunk opens on a heading, a section boundary, so it may merge with the one before.
        """
        costs = self.costs
        blocks, sections = costs.layout.blocks, costs.layout.sections
        depths = [sections[blocks[atom.block].section].depth for atom in atoms]
        plans: list[Plan] = []
        first = 0
        while first < len(atoms):
            best, best_depth = first + 1, depths[first + 1] if first + 1 < len(atoms) else 0
            opening = atoms[first]
            # ``plan_of``'s total, kept up to date one heading at a time (its sum again
            # for every candidate end would make a long run quadratic).
            start = costs.start(opening.block, opening.start, opening.end)
            body = opening.cost
            for end in range(first + 2, len(atoms) + 1):
                atom = atoms[end - 1]
                body += atom.cost + costs.joins[atom.block]  # each heading is its own block
                if start + body + costs.end(atom.block, atom.end) > costs.target:
                    break
                depth = depths[end] if end < len(atoms) else 0
                if depth <= best_depth:
                    best, best_depth = end, depth
            plans.append(plan_of(costs, atoms[first:best], SPLIT)._replace(mergeable=True))
            first = best
        return plans

    def _join_back(
        self, plans: list[Plan], headings: tuple[int, ...]
    ) -> tuple[list[Plan], tuple[int, ...]]:
        """Headings of a section that holds nothing else join the chunk right before them
        when it has room; otherwise they are handed back, to go on to what follows.

        Backward first: a chunk's heading path is its first block's, so an empty section
        that opened the next chunk would name that chunk ("Description" over the content
        of "Details"); at the end of the chunk before, it names nothing.
        """
        costs = self.costs
        if not plans or plans[-1].atoms[-1].block + 1 != headings[0]:
            return plans, headings
        tail = [whole_atom(costs, block, Strength.BLOCK) for block in headings]
        last = plans[-1]
        joined = plan_of(costs, [*last.atoms, *tail], last.kind)
        if joined.total > costs.hard:
            return plans, headings
        return [*plans[:-1], joined._replace(mergeable=last.mergeable)], ()
