"""Blocks, atoms and plans are built by ``tuple.__new__``, not their named tuple's ``__new__``.

Nothing checks the number of values given to ``tuple.__new__``: a field added to
``Block``, ``Atom`` or ``Plan`` and forgotten at its builder would make short tuples that
fail only where the field is read. These tests build all three from real documents and
compare each with the same values given to the class itself.
"""

from __future__ import annotations

import pytest

from fastrag.packing import PackingConfig
from fastrag.packing.costs import Costs
from fastrag.packing.leaves import Block
from fastrag.packing.merge import Plan, new_plan
from fastrag.packing.planner import Planner
from fastrag.packing.refine import Atom, Refiner, new_atom
from fastrag.packing.windows import build_layouts
from fastrag.tokenization import Utf8ByteTokenizer
from tests.unit.packing._engine_support import normalize

DOCUMENTS = {
    "markdown": "# T\n\nIntro:\n\n- a\n  - b\n\n| h | i |\n|---|---|\n| 1 | 2 |\n\n"
    + "word " * 400
    + "\n\n```py\nx = 1\n```\n",
    "html": "<h1>T</h1><p>"
    + "word " * 300
    + "</p><ul><li>a</li><li>b</li></ul><table><tr><th>h</th></tr><tr><td>1</td></tr></table>",
    "text": "Title\n=====\n\n" + "A sentence here. " * 200,
}


@pytest.mark.parametrize("content_format", sorted(DOCUMENTS))
def test_built_tuples_equal_their_class_built_from_the_same_values(content_format: str) -> None:
    normalized = normalize(DOCUMENTS[content_format], content_format)
    config = PackingConfig(max_tokens=120, target_tokens=80, min_preferred_tokens=10)
    tokenizer = Utf8ByteTokenizer()
    atoms: list[Atom] = []
    plans: list[Plan] = []
    blocks: list[Block] = []
    for layout in build_layouts(normalized, config):
        blocks += layout.blocks
        costs = Costs(layout, tokenizer, config)
        made = Planner(costs, Refiner(costs)).plan()
        plans += made
        atoms += [atom for plan in made for atom in plan.atoms]
    assert blocks and atoms and plans
    assert any(atom.start > 0 for atom in atoms)  # refined pieces, not only whole blocks
    for built, cls in [*((b, Block) for b in blocks), *((a, Atom) for a in atoms)]:
        assert type(built) is cls and len(built) == len(cls._fields)
        assert built == cls(*built) and built._asdict() == cls(*built)._asdict()
    for plan in plans:
        assert type(plan) is Plan and plan == Plan(*plan) and len(plan) == len(Plan._fields)


def test_builders_default_like_their_class() -> None:
    assert new_atom(1, 2, 3, 4, 5, 6) == Atom(1, 2, 3, 4, 5, 6)
    assert new_atom(1, 2, 3, 4, 5, 6, True) == Atom(1, 2, 3, 4, 5, 6, True)
    atom = Atom(0, 0, 1, 1, 0, 0)
    assert new_plan((atom,), "k", 1, 2, 3) == Plan((atom,), "k", 1, 2, 3)
