"""TextNormalizer: paragraphs, separators, line ends, limits and pathological input."""

from __future__ import annotations

import pytest

from fastrag.exceptions import ConfigurationError, NormalizationError
from fastrag.models import Document
from fastrag.normalization import NormalizedDocument, NormalizerRegistry, SourceSpan
from fastrag.normalization.formats.text import TextNormalizer

NORMALIZER = TextNormalizer()


def normalize(source: str, normalizer: TextNormalizer = NORMALIZER) -> NormalizedDocument:
    return normalizer.normalize(Document("t", "test", source))


def paragraphs(tree: NormalizedDocument) -> list[str]:
    return [node.text for node in tree.nodes[1:]]


def gaps(tree: NormalizedDocument) -> list[str]:
    return [exclusion.span.slice(tree.content) for exclusion in tree.exclusions]


def test_blank_lines_separate_paragraphs_and_are_excluded() -> None:
    tree = normalize("Pears need water.\nWeekly.\n\nSoil:\n  test it.\n")
    assert paragraphs(tree) == ["Pears need water.\nWeekly.", "Soil:\n  test it."]
    assert gaps(tree) == ["\n\n", "\n"]
    assert all(exclusion.reason == "whitespace" for exclusion in tree.exclusions)
    assert [node.kind for node in tree.nodes] == ["document", "paragraph", "paragraph"]
    assert tree.root.text == "" and tree.root.children == tuple(n.node_id for n in tree.nodes[1:])


def test_whitespace_only_lines_are_blank() -> None:
    tree = normalize("a\n \t \nb\n\u3000\nc")
    assert paragraphs(tree) == ["a", "b", "c"]
    assert gaps(tree) == ["\n \t \n", "\n\u3000\n"]


def test_indentation_and_trailing_spaces_of_a_paragraph_are_kept() -> None:
    tree = normalize("\n\n   indented first\nlast   \n\n")
    assert paragraphs(tree) == ["   indented first\nlast   "]
    assert gaps(tree) == ["\n\n", "\n\n"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a\r\nb\r\n\r\nc\r\n", ["a\r\nb", "c"]),
        ("a\rb\r\rc", ["a\rb", "c"]),
        ("a\r\n\rb\n\r\nc", ["a", "b", "c"]),  # mixed: each is one line end
        ("a\r\nb", ["a\r\nb"]),  # CRLF is one line end, not a blank line
    ],
)
def test_line_ends(source: str, expected: list[str]) -> None:
    tree = normalize(source)
    assert paragraphs(tree) == expected
    assert all(node.spans[0].slice(source) == node.text for node in tree.nodes[1:])


@pytest.mark.parametrize("source", ["", " ", "\n", "\r\n\r\n \t"])
def test_empty_and_blank_documents(source: str) -> None:
    tree = normalize(source)
    assert paragraphs(tree) == [] and tree.units == ()
    assert gaps(tree) == ([source] if source else [])
    assert tree.root.spans == ((SourceSpan(0, len(source)),) if source else ())


def test_nul_lone_surrogates_and_unicode_line_separators_stay_text() -> None:
    source = "a\x00b \ud800\n\u2028x\x0cy\n\n\udfff"
    tree = normalize(source)
    assert paragraphs(tree) == ["a\x00b \ud800\n\u2028x\x0cy", "\udfff"]


def test_units_and_ids_are_deterministic() -> None:
    first = normalize("a\n\nb\n")
    second = normalize("a\n\nb\n")
    assert first == second
    assert [unit.unit_id for unit in first.units] == ["t:u0", "t:u1"]
    assert [node.node_id for node in first.nodes] == [
        "t:document:0",
        "t:paragraph:1",
        "t:paragraph:2",
    ]


def test_registry_reads_undeclared_format_as_text() -> None:
    tree = NormalizerRegistry().normalize(Document("x", "s", "# not markdown\n\nbody"))
    assert tree.format == "text" and paragraphs(tree) == ["# not markdown", "body"]


def test_identity_and_options() -> None:
    assert TextNormalizer.identity == TextNormalizer().identity == "text:paragraphs:v1"
    with pytest.raises(ConfigurationError, match="max_characters"):
        TextNormalizer(max_characters=0)
    with pytest.raises(NormalizationError, match=r"max_characters=5\b"):
        normalize("abcdef", TextNormalizer(max_characters=5))


@pytest.mark.parametrize("filler", [" ", "x", "\n", "\r\n \r\n"])
def test_huge_single_runs_stay_linear(filler: str) -> None:
    source = filler * (5_000_000 // len(filler))  # 50 MB is measured by hand (see bench/)
    tree = normalize(source)
    assert tree.retained_characters + tree.excluded_characters == len(source)
    assert len(tree.units) == (1 if filler == "x" else 0)


def test_many_paragraphs() -> None:
    source = "line one\nline two\n\n" * 5_000
    tree = normalize(source)
    assert len(tree.units) == 5_000
    assert paragraphs(tree)[-1] == "line one\nline two"
