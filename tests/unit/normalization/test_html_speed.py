"""What the HTML normalizer's speed work must keep: output, and no garbage left to collect."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from fastrag.models import Document
from fastrag.normalization.formats.html import HtmlNormalizer

# Each page takes another way through the normalizer: plain structure, headings outside
# the main content dropped with their sections, a manual's navigation without a main
# region, main content inside chrome (a rerun), an empty <main> (a second pass), and a
# page of chrome only (boilerplate kept).
PAGES = {
    "structure": (
        "<h1>Title</h1><p>Some <a href='/x'>linked</a> text.</p><h2>Part</h2>"
        "<ul><li>one<ul><li>nested</li></ul></li></ul><dl><dt>term</dt><dd>def</dd></dl>"
        "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"
        "<pre><code class='language-py'>x = 1\n</code></pre><blockquote>quote</blockquote>"
    ),
    "outside headings": (
        "<div class='sidebar'><h3>Quick search</h3><form><input></form></div>"
        "<h2>Top bar</h2><div role='main'><h1>Page</h1><p>Body text.</p></div>"
    ),
    "manual navigation": (
        "<h1>Manual</h1><div class='nav-panel'><p><a href='n.html' rel='next'>Next</a></p>"
        "</div><h2>Node</h2><p>Up: <a href='u.html' accesskey='u'>Top</a></p><p>Text.</p>"
    ),
    "main inside chrome": "<nav><main><h1>Main</h1><p>Content.</p></main></nav><p>x</p>",
    "empty main": "<main></main><h1>Title</h1><p>Text outside main.</p>",
    "chrome only": "<nav><h1>Menu</h1><p>Home, About</p></nav>",
}


@pytest.fixture
def collector_off() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    gc.collect()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@pytest.mark.usefixtures("collector_off")
@pytest.mark.parametrize("name", sorted(PAGES))
def test_normalizing_leaves_no_cyclic_garbage(name: str) -> None:
    # The draft blocks point at their parents (and rows at their tables): unless the
    # builder breaks those cycles, every draft waits for a full collection.
    tree = HtmlNormalizer().normalize(Document(name, "test", PAGES[name]))
    assert tree.nodes
    del tree
    assert gc.collect() == 0


@pytest.mark.parametrize(
    ("source", "exclusions"),
    [
        (
            '<p>a</p><button title="x>y"/>b',
            [(0, 3, "markup"), (4, 8, "markup"), (8, 25, "ui_control"), (25, 29, "markup")],
        ),
        (
            '<nav class="a>b"/><p>text</p>',
            [(0, 14, "boilerplate"), (14, 21, "markup"), (25, 29, "markup")],
        ),
    ],
)
def test_self_closing_element_read_as_end_tag_ends_at_its_first_gt(
    source: str, exclusions: list[tuple[int, int, str]]
) -> None:
    # "<x …/>" of a non-void element is a start tag and an end tag; as an end tag it ends
    # at its first ">", even inside a quoted value (html.parser's reading, kept as before).
    tree = HtmlNormalizer().normalize(Document("d", "test", source))
    assert [(e.span.start, e.span.end, e.reason) for e in tree.exclusions] == exclusions
