"""A definition list's term is never the last thing in a chunk: its definition follows it.

Real glossaries, option lists and API references (Python's glossary, valgrind's options)
lost the searched-for name from the chunk holding its definition when a cut fell
between ``<dt>`` and ``<dd>`` (or an RST term and its body).
"""

from __future__ import annotations

import pytest

from tests.unit.packing._engine_support import last_lines_of_validated_chunks

LENGTHS = (1, 6, 1, 2, 1, 3, 3, 1, 4, 2, 1, 5, 1, 2, 3, 1, 1, 6, 2, 1)
TERMS = [f"term{number:02d}" for number in range(len(LENGTHS))]


def _definition(term: str, sentences: int) -> str:
    return " ".join(f"Sentence {n} about {term} adds detail." for n in range(sentences))


def _html() -> str:
    pairs = "".join(
        f"<dt>{term}</dt><dd>{_definition(term, count)}</dd>"
        for term, count in zip(TERMS, LENGTHS, strict=True)
    )
    return f"<html><body><main><h1>Glossary</h1><dl>{pairs}</dl></main></body></html>"


def _rst() -> str:
    pairs = "\n\n".join(
        f"{term}\n   {_definition(term, count)}" for term, count in zip(TERMS, LENGTHS, strict=True)
    )
    return f"Glossary\n========\n\n{pairs}\n"


@pytest.mark.parametrize(("content", "content_format"), [(_html(), "html"), (_rst(), "rst")])
@pytest.mark.parametrize("budget", [180, 260, 400])
def test_no_chunk_ends_with_a_bare_term(content: str, content_format: str, budget: int) -> None:
    lasts, shown = last_lines_of_validated_chunks(content, content_format, budget, budget * 2 // 3)
    assert len(lasts) > 3
    for last in lasts:
        assert last not in TERMS, f"a chunk ends with the bare term {last!r}"
    assert all(term in shown for term in TERMS)
