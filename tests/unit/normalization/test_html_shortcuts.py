"""The HTML adapter's speed shortcuts change nothing: each against the plain way it skips."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given

from fastrag._pure import compiled
from fastrag.models import Document
from fastrag.normalization.formats import _html_events
from fastrag.normalization.formats._html_events import TreeBuilder
from fastrag.normalization.formats._html_generators import read_page
from fastrag.normalization.formats._html_tags import marks_main
from fastrag.normalization.formats._html_tokens import Tokenizer
from fastrag.normalization.formats.html import HtmlNormalizer
from tests._paths import SHARED
from tests.property._normalizer_checks import GENERATED
from tests.strategies.html import documents

GOLDEN = sorted((Path(__file__).parents[2] / "golden" / "html").glob("*.src"))
NORMALIZERS = (HtmlNormalizer(), HtmlNormalizer(remove_boilerplate=False))


def _everything(content: str) -> list[str]:
    """Every normalizer setting's full output (nodes, units, exclusions, diagnostics)."""
    results = []
    for normalizer in NORMALIZERS:
        tree = normalizer.normalize(Document("d", "s", content))
        results.append(repr((tree.nodes, tree.units, tree.exclusions, tree.diagnostics)))
    return results


def _without_element_shortcut(content: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as patch:
        # The tokenizer's own handle_element reports start tag, text and end tag.
        patch.setattr(TreeBuilder, "handle_element", Tokenizer.handle_element)
        return _everything(content)


@pytest.mark.parametrize("path", [*GOLDEN, SHARED / "corpus" / "web" / "wiki_duck.html"])
def test_inline_element_shortcut_changes_nothing_on_real_pages(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = path.read_text(encoding="utf-8")
    assert _everything(content) == _without_element_shortcut(content, monkeypatch)


@GENERATED
@given(documents())
def test_inline_element_shortcut_changes_nothing_on_generated_html(content: str) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert _everything(content) == _without_element_shortcut(content, monkeypatch)


@pytest.mark.skipif(
    compiled(_html_events), reason="a compiled TreeBuilder cannot be subclassed to observe it"
)
def test_the_shortcut_is_taken_and_keeps_chrome_checks() -> None:
    taken: list[str] = []

    class Counting(TreeBuilder):
        def handle_starttag(self, tag: str, has_attributes: bool) -> None:
            taken.append(tag)
            super().handle_starttag(tag, has_attributes)

    content = '<main><p><em>a</em> <span class="n">b</span></p></main><span hidden>c</span>'
    page = read_page(content)
    assert page.has_main
    builder = Counting(
        content, HtmlNormalizer()._limits, boilerplate=True, page=page, protected=frozenset()
    )
    builder.run()
    # em and span inside main are skipped as elements; main, p and the span that may be
    # chrome (outside main, with attributes) are not.
    assert taken == ["main", "p", "span"]


# The probe's definition as one pattern, which the two searches of marks_main replace.
_ONE_PATTERN = re.compile(r"<(?:main|article)[\s/>]|\brole\s*=\s*[\"']?main\b", re.IGNORECASE)


@pytest.mark.parametrize(
    "content",
    [
        "<MAIN>", "<main\n", "<article/>", "<mainly>", "<maİn>", "<maın>", "role=main",
        "ROLE = 'Main'", 'role="main"', "xrole=main", "_role=main", "-role=main",
        "role=mainly", "role=main-x", "rolemain", "<p>no</p>", "",
    ],
)  # fmt: skip
def test_marks_main_is_the_one_pattern_probe(content: str) -> None:
    assert marks_main(content) == (_ONE_PATTERN.search(content) is not None)
