"""HtmlNormalizer: headings inside ``<summary>`` and other wrappers open sections.

rustdoc (docs.rs, the Rust std docs) puts every method's title in ``<details><summary>
<section><h4 class="code-header">``; the fixture below copies that markup, cut down. The
section path of a method's docs must name the method, not the previous method's last
``<h5>`` ("Examples").
"""

from __future__ import annotations

from fastrag.normalization import NormalizedDocument, NormalizedNode
from fastrag.normalization.formats.html import HtmlNormalizer
from tests.unit.normalization._html_helpers import normalize


def path(tree: NormalizedDocument, node: NormalizedNode) -> list[str]:
    """The titles of the sections around ``node``, outermost first."""
    by_id = {n.node_id: n for n in tree.nodes}
    titles: list[str] = []
    parent = node.parent_id
    while parent is not None:
        ancestor = by_id[parent]
        if ancestor.kind == "section":
            titles.append(ancestor.text)
        parent = ancestor.parent_id
    return titles[::-1]


def leaves(tree: NormalizedDocument) -> list[tuple[str, str, list[str]]]:
    """Every leaf as (kind, text, section path), in document order."""
    return [(n.kind, n.text, path(tree, n)) for n in tree.nodes if n.serialization]


def source_of(tree: NormalizedDocument, node: NormalizedNode) -> str:
    span = node.spans[0]
    return tree.content[span.start : span.end]


def _method(anchor: str, since: str, signature: str, docs: str) -> str:
    return (
        f'<details class="toggle method-toggle" open><summary><section id="method.{anchor}" '
        f'class="method"><span class="rightside"><span class="since">{since}</span> · '
        f'<a class="src" href="../src/vec.rs.html#1">Source</a></span>'
        f'<h4 class="code-header">{signature}</h4></section></summary>'
        f'<div class="docblock">{docs}</div></details>'
    )


RUSTDOC = (
    "<!DOCTYPE html><html><head><title>Vec in std::vec - Rust</title></head><body>"
    '<main><section id="main-content" class="content"><div class="main-heading">'
    '<h1>Struct <span class="struct">Vec</span></h1></div>'
    '<details class="toggle top-doc" open><summary class="hideme"><span>Expand description'
    '</span></summary><div class="docblock"><p>A growable array.</p></div></details>'
    '<h2 id="implementations" class="section-header">Implementations</h2>'
    '<div id="implementations-list"><details class="toggle implementors-toggle" open>'
    '<summary><section id="impl-Vec" class="impl"><h3 class="code-header">impl&lt;T&gt; '
    '<a href="#" class="struct">Vec</a>&lt;T&gt;</h3></section></summary>'
    '<div class="impl-items">'
    + _method(
        "new",
        "1.0.0",
        'pub const fn <a href="#method.new" class="fn">new</a>() -&gt; Self',
        '<p>Constructs a new, empty <code>Vec&lt;T&gt;</code>.</p><h5 id="examples">'
        '<a class="doc-anchor" href="#examples">§</a>Examples</h5>'
        '<div class="example-wrap"><pre class="rust"><code>let v: Vec&lt;i32&gt; = '
        "Vec::new();</code></pre></div>",
    )
    + _method(
        "push",
        "1.0.0",
        'pub fn <a href="#method.push" class="fn">push</a>(&amp;mut self, value: T)',
        "<p>Appends an element to the back of a collection.</p>"
        '<h5 id="panics"><a class="doc-anchor" href="#panics">§</a>Panics</h5>'
        "<p>Panics if the new capacity exceeds <code>isize::MAX</code> bytes.</p>",
    )
    + "</div></details></div></section></main></body></html>"
)

IMPL = "impl<T> Vec<T>"
NEW = "pub const fn new() -> Self"
PUSH = "pub fn push(&mut self, value: T)"


def test_rustdoc_method_titles_open_sections() -> None:
    tree = normalize(RUSTDOC)
    top = ["Struct Vec"]
    impl = [*top, "Implementations", IMPL]
    assert leaves(tree) == [
        ("heading", "Struct Vec", top),
        ("paragraph", "Expand description", top),
        ("paragraph", "A growable array.", top),
        ("heading", "Implementations", [*top, "Implementations"]),
        ("heading", IMPL, impl),
        ("paragraph", "1.0.0 · Source", impl),
        ("heading", NEW, [*impl, NEW]),
        ("paragraph", "Constructs a new, empty Vec<T>.", [*impl, NEW]),
        ("heading", "Examples", [*impl, NEW, "Examples"]),
        ("code", "let v: Vec<i32> = Vec::new();", [*impl, NEW, "Examples"]),
        # The version and source link precede the title inside <summary>: they stay a
        # paragraph where they are, at the end of the previous method.
        ("paragraph", "1.0.0 · Source", [*impl, NEW, "Examples"]),
        ("heading", PUSH, [*impl, PUSH]),
        ("paragraph", "Appends an element to the back of a collection.", [*impl, PUSH]),
        ("heading", "Panics", [*impl, PUSH, "Panics"]),
        (
            "paragraph",
            "Panics if the new capacity exceeds isize::MAX bytes.",
            [*impl, PUSH, "Panics"],
        ),
    ]
    levels = {n.text: n.level for n in tree.nodes if n.kind == "section"}
    assert levels == {
        "Struct Vec": 1,
        "Implementations": 2,
        IMPL: 3,
        NEW: 4,
        "Examples": 5,
        PUSH: 4,
        "Panics": 5,
    }
    assert not tree.diagnostics


def test_rustdoc_titles_keep_exact_source_offsets() -> None:
    tree = normalize(RUSTDOC)
    headings = {n.text: n for n in tree.nodes if n.kind == "heading"}
    push = headings[PUSH]
    assert source_of(tree, push) == (
        '<h4 class="code-header">pub fn <a href="#method.push" class="fn">push</a>'
        "(&amp;mut self, value: T)</h4>"
    )
    # Every displayed character maps back to the source it shows.
    shown = [
        (push.text[s.display_start : s.display_end], tree.content[s.source_start : s.source_end])
        for s in push.serialization
    ]
    assert shown == [("pub fn ", "pub fn "), ("push", "push"), ("(", "("), ("&", "&amp;"),
                     ("mut self, value: T)", "mut self, value: T)")]  # fmt: skip
    version = [n for n in tree.nodes if n.text == "1.0.0 · Source"][1]
    # The summary's paragraph runs from <summary> to the title's start tag.
    assert source_of(tree, version).startswith('<summary><section id="method.push"')
    assert source_of(tree, version).endswith("Source</a></span>")
    assert dict(version.attributes)["links"] == (("Source", "../src/vec.rs.html#1"),)


def test_summary_without_heading_stays_one_paragraph() -> None:
    source = (
        "<h1>FAQ</h1><details><summary>Why is <b>this</b> slow?</summary>"
        "<p>Because it reads the disk.</p></details><p>After.</p>"
    )
    tree = normalize(source)
    assert leaves(tree) == [
        ("heading", "FAQ", ["FAQ"]),
        ("paragraph", "Why is this slow?", ["FAQ"]),
        ("paragraph", "Because it reads the disk.", ["FAQ"]),
        ("paragraph", "After.", ["FAQ"]),
    ]
    summary = tree.nodes[3]
    assert source_of(tree, summary) == "<summary>Why is <b>this</b> slow?</summary>"


def test_text_after_the_heading_inside_summary_belongs_to_its_section() -> None:
    source = (
        "<h1>Guide</h1><p>Intro.</p><details><summary><h2>Setup</h2> (optional)</summary>"
        "<p>Install it.</p></details>"
    )
    tree = normalize(source)
    assert leaves(tree) == [
        ("heading", "Guide", ["Guide"]),
        ("paragraph", "Intro.", ["Guide"]),
        ("heading", "Setup", ["Guide", "Setup"]),
        ("paragraph", "(optional)", ["Guide", "Setup"]),
        ("paragraph", "Install it.", ["Guide", "Setup"]),
    ]
    assert not tree.diagnostics


def test_heading_after_text_directly_in_a_wrapper_opens_a_section() -> None:
    source = "<h1>Top</h1><div>Loose text<h2>Sub</h2><p>Body.</p></div><p>Later.</p>"
    tree = normalize(source)
    assert leaves(tree) == [
        ("heading", "Top", ["Top"]),
        ("paragraph", "Loose text", ["Top"]),
        ("heading", "Sub", ["Top", "Sub"]),
        ("paragraph", "Body.", ["Top", "Sub"]),
        ("paragraph", "Later.", ["Top", "Sub"]),
    ]


def test_link_around_a_summary_heading() -> None:
    source = (
        '<h1>Api</h1><details><summary>v2 <a href="#f"><h3>fn f()</h3></a></summary>'
        "<p>Does f.</p></details>"
    )
    tree = normalize(source)
    assert leaves(tree) == [
        ("heading", "Api", ["Api"]),
        ("paragraph", "v2", ["Api"]),
        ("heading", "fn f()", ["Api", "fn f()"]),
        ("paragraph", "Does f.", ["Api", "fn f()"]),
    ]
    assert all("links" not in n.attributes for n in tree.nodes)


def test_summary_heading_inside_a_list_is_a_leaf() -> None:
    source = (
        "<h1>Top</h1><ul><li><details><summary>Note <h3>Title</h3></summary>"
        "<p>Text.</p></details></li></ul>"
    )
    tree = normalize(source)
    assert leaves(tree) == [
        ("heading", "Top", ["Top"]),
        ("paragraph", "- Note", ["Top"]),
        ("heading", "Title", ["Top"]),
        ("paragraph", "  Text.", ["Top"]),
    ]
    assert [n.kind for n in tree.nodes if n.kind == "section"] == ["section"]


def test_identity_names_version_4() -> None:
    assert HtmlNormalizer.identity == "html:html.parser-3.11.7:v43"
