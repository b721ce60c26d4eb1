"""Checks the normalizer property tests share: unit round trips, lineage, determinism.

Every built-in adapter (text, Markdown, reStructuredText, HTML) owes the same tree
contract, so the parts of that contract stated identically for each format are stated
here once; each ``tests/property/test_*_normalizer.py`` keeps what is specific to its
format (which kinds are leaves, how sections may nest, what an exclusion looks like).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, settings

from fastrag.models import Document
from fastrag.normalization import CoverageUnit, NormalizedDocument, NormalizedNode, Normalizer
from fastrag.normalization.dump import dump_tree

__all__ = [
    "GENERATED",
    "IN_ANOTHER_PROCESS",
    "NormalizerUnderTest",
    "assert_heading_unit",
    "assert_leaf_unit",
    "assert_lineage",
    "assert_no_heading_inside_code",
    "assert_syntax_unit",
    "only_real_heading_and_one_code",
    "within",
]

GENERATED = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
"""Settings for properties over generated nasty documents."""

IN_ANOTHER_PROCESS = settings(max_examples=5, deadline=None)
"""Settings for the cross-process check: each example starts a Python interpreter."""

_ROOT = Path(__file__).resolve().parents[2]

_CHILD = """
import importlib
import sys
from fastrag.models import Document
from fastrag.normalization.dump import dump_tree
module, name, content_format = sys.argv[1:]
normalizer = getattr(importlib.import_module(module), name)()
metadata = {"content_format": content_format} if content_format else {}
source = sys.stdin.buffer.read().decode("utf-8", "surrogatepass")
tree = normalizer.normalize(Document("doc", "gen", source, metadata))
sys.stdout.buffer.write(dump_tree(tree).encode("utf-8", "surrogatepass"))
"""


@dataclass(frozen=True, slots=True)
class NormalizerUnderTest:
    """A built-in normalizer class and the ``content_format`` its documents declare.

    The class (not an instance) is kept so a child process can import and build the
    very same adapter by its module and name; None as format leaves metadata empty.
    """

    normalizer_class: type[Normalizer]
    content_format: str | None
    normalizer: Normalizer = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "normalizer", self.normalizer_class())

    def normalize(self, source: str) -> NormalizedDocument:
        """Normalize ``source`` (normalize() returns the result of validate())."""
        metadata = {"content_format": self.content_format} if self.content_format else {}
        return self.normalizer.normalize(Document("doc", "gen", source, metadata))

    def assert_same_tree_in_another_process(self, source: str, hash_seed: str = "12345") -> None:
        """A fresh interpreter with another PYTHONHASHSEED dumps a byte-identical tree."""
        child = subprocess.run(
            [
                sys.executable,
                "-c",
                _CHILD,
                self.normalizer_class.__module__,
                self.normalizer_class.__qualname__,
                self.content_format or "",
            ],
            input=source.encode("utf-8", "surrogatepass"),
            capture_output=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            cwd=_ROOT,
        )
        assert child.stdout.decode("utf-8", "surrogatepass") == dump_tree(self.normalize(source))


def within(inner: tuple[int, int], outer: tuple[int, int]) -> bool:
    """Whether the half-open range ``inner`` lies inside ``outer``."""
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def assert_leaf_unit(node: NormalizedNode, unit: CoverageUnit, covered: str) -> None:
    """A leaf's one span is its unit and its text is exactly the source it covers."""
    assert node.spans == (unit.span,)
    assert node.text == covered


def assert_heading_unit(node: NormalizedNode, unit: CoverageUnit) -> None:
    """A heading's one span is its unit and its text is a single line."""
    assert node.spans == (unit.span,)
    assert "\n" not in node.text and "\r" not in node.text


def assert_syntax_unit(node: NormalizedNode, unit: CoverageUnit, owners: set[str]) -> None:
    """A container's unit covers only its own syntax: no text, inside the container."""
    assert node.kind in owners, node.kind
    assert node.text == ""
    assert within((unit.span.start, unit.span.end), (node.start, node.end))


def assert_lineage(
    tree: NormalizedDocument, *, spanless_parents: bool, consecutive_levels: bool
) -> None:
    """Every node below the root has one span nested in its parent's; sections follow levels.

    ``spanless_parents`` allows a parent without spans (nesting is then not checked);
    otherwise every parent must enclose its child. A section opens with a heading of its
    own level and shows that heading's text; with ``consecutive_levels`` a section is
    exactly one level below its parent (the root counting as level 0), else any level
    deeper than a parent section.
    """
    for node in tree.nodes[1:]:
        parent = tree.node(node.parent_id or "")
        assert len(node.spans) == 1
        if parent.spans or not spanless_parents:
            assert within((node.start, node.end), (parent.start, parent.end))
        if node.kind == "section":
            first = tree.node(node.children[0])
            assert first.kind == "heading" and first.level == node.level
            assert node.text == first.text
            if consecutive_levels:
                assert (parent.level or 0) + 1 == node.level
            else:
                assert parent.kind == "document" or (parent.level or 0) < (node.level or 0)


def assert_no_heading_inside_code(tree: NormalizedDocument) -> None:
    """No heading overlaps a code block."""
    code = [(node.start, node.end) for node in tree.nodes if node.kind == "code"]
    for heading in (node for node in tree.nodes if node.kind == "heading"):
        for start, end in code:
            assert heading.end <= start or heading.start >= end


def only_real_heading_and_one_code(tree: NormalizedDocument) -> NormalizedNode:
    """For a "Real" heading followed by heading-like lines in code: that code node.

    The heading-like lines must not have become headings, and must have stayed in one
    code block, which is returned for the format's own check of its text.
    """
    assert [node.text for node in tree.nodes if node.kind == "heading"] == ["Real"]
    (code,) = [node for node in tree.nodes if node.kind == "code"]
    return code
