"""HtmlNormalizer: each construct read into the tree, its map and its coverage."""

from __future__ import annotations

import pytest

from fastrag.models import Document
from fastrag.normalization import NormalizedDocument, NormalizedNode, NormalizerRegistry
from fastrag.normalization.formats.html import HtmlNormalizer
from tests.unit.normalization._html_helpers import excluded, normalize, texts


def leaves(tree: NormalizedDocument) -> list[tuple[str, str]]:
    return [(n.kind, n.text) for n in tree.nodes if n.serialization]


def only(tree: NormalizedDocument, kind: str) -> NormalizedNode:
    (node,) = [n for n in tree.nodes if n.kind == kind]
    return node


def source_of(tree: NormalizedDocument, node: NormalizedNode, display: str) -> str:
    """The source that the display substring ``display`` of ``node`` maps to."""
    start = node.text.index(display)
    end = start + len(display)
    runs = [r for r in node.serialization if r.display_start < end and r.display_end > start]
    return tree.content[runs[0].source_start : runs[-1].source_end]


def reasons(tree: NormalizedDocument) -> list[str]:
    return [e.reason for e in tree.exclusions if e.reason not in ("markup", "whitespace")]


# -- text, whitespace, references ---------------------------------------------------------


def test_paragraph_text_collapses_whitespace_and_maps_each_run() -> None:
    source = "<p>Hello   <b>big</b>\n  world</p>"
    tree = normalize(source)
    paragraph = only(tree, "paragraph")
    assert paragraph.text == "Hello big world"
    runs = [
        (r.display_start, r.display_end, r.source_start, r.source_end)
        for r in paragraph.serialization
    ]
    assert runs == [(0, 5, 3, 8), (5, 6, 8, 11), (6, 9, 14, 17), (9, 10, 21, 24), (10, 15, 24, 29)]
    assert source_of(tree, paragraph, "big") == "big"
    (unit,) = tree.units
    assert (unit.span.start, unit.span.end) == (3, 29)  # the leaf's text, inline tags inside
    assert [(e.span.start, e.span.end, e.reason) for e in tree.exclusions] == [
        (0, 3, "markup"),
        (29, 33, "markup"),
    ]


def test_single_whitespace_characters_map_one_to_one() -> None:
    tree = normalize("<p>a\nb\tc\r\nd</p>")
    paragraph = only(tree, "paragraph")
    assert paragraph.text == "a b c d"
    assert [(r.display_start, r.display_end) for r in paragraph.serialization] == [
        (0, 5),
        (5, 6),
        (6, 7),
    ]
    assert [r.verbatim for r in paragraph.serialization] == [True, False, True]


def test_character_references_decode_and_map_to_their_source() -> None:
    tree = normalize("<p>a &amp; b &lt;c&gt; &#x41;&#66; caf&eacute; &nbsp;x</p>")
    paragraph = only(tree, "paragraph")
    assert paragraph.text == "a & b <c> AB café \xa0x"
    assert source_of(tree, paragraph, "&") == "&amp;"
    assert source_of(tree, paragraph, "AB") == "&#x41;&#66;"
    assert not tree.diagnostics


def test_unknown_and_invalid_references_stay_literal_with_diagnostics() -> None:
    source = "<p>AT&T &bogus; &#xD800; &#1; &amp</p>"
    tree = normalize(source)
    assert only(tree, "paragraph").text == "AT&T &bogus; \ufffd &#1; &"
    assert tree.diagnostics == (
        f"offset {source.index('&bogus')}: unknown character reference kept as text",
        f"offset {source.index('&#xD800')}: invalid character reference",
        f"offset {source.index('&#1;')}: unknown character reference kept as text",
    )


def test_br_breaks_the_line_in_paragraphs_and_is_a_space_in_headings() -> None:
    tree = normalize("<h2>One<br>Two</h2><p>a<br>b<br><br>c</p>")
    assert leaves(tree) == [("heading", "One Two"), ("paragraph", "a\nb\n\nc")]


def test_bare_text_becomes_implicit_paragraphs_split_by_blocks() -> None:
    tree = normalize("before<div>inside</div>after <b>bold</b><hr>end")
    assert leaves(tree) == [
        ("paragraph", "before"),
        ("paragraph", "inside"),
        ("paragraph", "after bold"),
        ("paragraph", "end"),
    ]


def test_implied_paragraph_ends_are_not_diagnosed() -> None:
    tree = normalize("<p>one<p>two<ul><li>x</ul><p>three")
    assert [t for k, t in leaves(tree) if k == "paragraph"] == ["one", "two", "- x", "three"]
    assert not tree.diagnostics


# -- headings and sections ----------------------------------------------------------------


def test_headings_open_sections_by_level_whatever_the_nesting() -> None:
    source = (
        "<h2>A</h2><p>a</p><h3>B</h3><p>b</p>"
        "<div><section><h2>C</h2><p>c</p></section></div><h1>D</h1>"
    )
    tree = normalize(source)
    outline = [(n.kind, n.level, n.text, tree.node(n.parent_id or "").kind) for n in tree.nodes[1:]]
    assert outline == [
        ("section", 2, "A", "document"),
        ("heading", 2, "A", "section"),
        ("paragraph", None, "a", "section"),
        ("section", 3, "B", "section"),
        ("heading", 3, "B", "section"),
        ("paragraph", None, "b", "section"),
        ("section", 2, "C", "document"),
        ("heading", 2, "C", "section"),
        ("paragraph", None, "c", "section"),
        ("section", 1, "D", "document"),
        ("heading", 1, "D", "section"),
    ]
    section_a = tree.nodes[1]
    assert (section_a.start, section_a.end) == (0, 36)


def test_headings_inside_containers_open_no_section() -> None:
    tree = normalize("<blockquote><h2>Quoted</h2><p>q</p></blockquote><ul><li><h3>Item</h3></ul>")
    assert not [n for n in tree.nodes if n.kind == "section"]
    headings = [
        (n.text, n.level, tree.node(n.parent_id or "").kind)
        for n in tree.nodes
        if n.kind == "heading"
    ]
    assert headings == [("Quoted", 2, "blockquote"), ("Item", 3, "list_item")]


def test_empty_or_blank_headings_open_no_section() -> None:
    tree = normalize("<h1> </h1><h2><!-- x --></h2><h3>&nbsp;</h3><p>body</p>")
    assert [n.kind for n in tree.nodes] == ["document", "paragraph"]


def test_leaves_showing_only_spaces_leave_the_tree() -> None:
    # Found by hypothesis: "<h1>&nbsp; </h1>" became a paragraph showing "\xa0", and a
    # chunk of it alone was whitespace, which the Chunker base drops (coverage lost).
    source = (
        "<p>&nbsp;</p><p>a</p><p>\xa0<b> </b>&#160;</p><pre>  \n </pre><h2>&nbsp; </h2><p>b</p>"
    )
    tree = normalize(source)
    assert [(n.kind, n.text) for n in tree.nodes] == [
        ("document", ""),
        ("paragraph", "a"),
        ("paragraph", "b"),
    ]
    assert [tree.content[u.span.start : u.span.end] for u in tree.units] == ["a", "b"]
    # Tags inside a dropped leaf are markup; the spaces and references between them are
    # whitespace (test_exclusions_are_what_they_claim checks this on generated pages).
    assert excluded(tree, "whitespace") == ["&nbsp;", "\xa0", " ", "&#160;", "  \n ", "&nbsp; "]
    assert "<b>" in excluded(tree, "markup")


def test_title_is_metadata_and_front_matter() -> None:
    tree = normalize(
        "<html><head><title> A &amp;\n B </title></head><body><h1>A</h1><p>x</p></body></html>"
    )
    assert tree.root.text == "A & B"
    assert dict(tree.metadata) == {"title": "A & B"}
    (front,) = [e for e in tree.exclusions if e.reason == "front_matter"]
    assert tree.content[front.span.start : front.span.end] == " A &amp;\n B "


def test_the_title_of_a_page_without_headings_heads_it() -> None:
    # sqlite.org's pages set their title in a styled div, no heading element: every chunk
    # had an empty heading path. The <title> is then a level-1 heading over the page.
    source = (
        "<html><head><title>The ON CONFLICT &amp; Clause</title></head><body>"
        '<div class="fancy_title">The ON CONFLICT Clause</div><p>A clause.</p></body></html>'
    )
    tree = normalize(source)
    assert [(n.kind, n.text) for n in tree.nodes if n.kind in ("section", "heading")] == [
        ("section", "The ON CONFLICT & Clause"),
        ("heading", "The ON CONFLICT & Clause"),
    ]
    assert dict(tree.metadata) == {"title": "The ON CONFLICT & Clause"}
    assert not [e for e in tree.exclusions if e.reason == "front_matter"]
    assert texts(tree) == ["The ON CONFLICT & Clause", "The ON CONFLICT Clause", "A clause."]
    # A heading anywhere, even one the page hides as chrome, leaves the title metadata.
    hidden = source.replace("<body>", "<body><nav><h2>Menu</h2></nav>")
    assert [e.reason for e in normalize(hidden).exclusions].count("front_matter") == 1


def test_text_before_the_html_element_leaves_the_title_and_the_markup_alone() -> None:
    # man2html's CGI output as saved in /usr/share/doc (bash.html): a header line first.
    source = (
        "Content-type: text/html\n\n<!DOCTYPE HTML>\n<HTML><HEAD><TITLE>Man page of BASH"
        "</TITLE>\n</HEAD><BODY>\n<H1>BASH</H1>\n<p>The shell. \n</p>"
    )
    tree = normalize(source)
    assert dict(tree.metadata) == {"title": "Man page of BASH"}
    assert [text for _, text in leaves(tree)] == ["Content-type: text/html", "BASH", "The shell."]
    # A unit runs from a leaf's first to its last shown character, nothing after it.
    assert [tree.content[u.span.start : u.span.end] for u in tree.units] == [
        "Content-type: text/html",
        "BASH",
        "The shell.",
    ]
    assert "<!DOCTYPE HTML>" in excluded(tree, "markup")
    assert " \n" in excluded(tree, "whitespace")


def test_what_follows_a_leafs_last_character_is_excluded_by_what_it_is() -> None:
    # Found by hypothesis: "&nbsp;" after the text was labelled markup.
    tree = normalize("<h1><b>bold</b> &nbsp; </h1> ")
    assert [tree.content[u.span.start : u.span.end] for u in tree.units] == ["bold"]
    assert excluded(tree, "whitespace") == [" &nbsp; ", " "]
    assert excluded(tree, "markup") == ["<h1><b>", "</b>", "</h1>"]


def test_unclosed_title_is_not_a_title() -> None:
    tree = normalize("<title>Oops<p>body</p>")
    assert tree.root.text == ""
    assert "body" in [t for _, t in leaves(tree)]


# -- lists and definitions ----------------------------------------------------------------


def test_nested_lists_show_labels_and_indentation() -> None:
    tree = normalize("<ul><li>one<li>two<ol start=9><li>nine<li value=3>three</ol></li></ul>")
    lists = [dict(n.attributes) for n in tree.nodes if n.kind == "list"]
    assert lists == [{"ordered": False}, {"ordered": True, "start": 9}]
    items = [dict(n.attributes) for n in tree.nodes if n.kind == "list_item"]
    assert items == [
        {"label": "-", "depth": 1},
        {"label": "-", "depth": 1},
        {"label": "9.", "depth": 2},
        {"label": "3.", "depth": 2},
    ]
    assert [t for _, t in leaves(tree)] == ["- one", "- two", "  9. nine", "  3. three"]
    assert all(n.text == "" for n in tree.nodes if n.kind in ("list", "list_item"))


@pytest.mark.parametrize(
    ("style", "labels"),
    [("a", ["a.", "b."]), ("A", ["A.", "B."]), ("i", ["i.", "ii."]), ("I", ["I.", "II."])],
)
def test_ordered_list_types(style: str, labels: list[str]) -> None:
    tree = normalize(f"<ol type={style}><li>x<li>y</ol>")
    assert [n.attributes["label"] for n in tree.nodes if n.kind == "list_item"] == labels


def test_item_paragraphs_after_the_first_show_the_continuation_indent() -> None:
    tree = normalize("<ol><li><p>first</p><p>second</p><pre>code</pre>after</li></ol>")
    assert leaves(tree) == [
        ("paragraph", "1. first"),
        ("paragraph", "   second"),
        ("code", "code"),
        ("paragraph", "   after"),
    ]


def test_definition_lists() -> None:
    tree = normalize(
        "<dl><dt>Term <code>x</code><dd><p>Meaning.</p><p>More.</p><dt>Two<dd>Second</dl>"
    )
    shape = [(n.kind, n.text) for n in tree.nodes[1:]]
    assert shape == [
        ("definition_list", ""),
        ("definition_term", "Term x"),
        ("definition", ""),
        ("paragraph", ": Meaning."),
        ("paragraph", "  More."),
        ("definition_term", "Two"),
        ("definition", ""),
        ("paragraph", ": Second"),
    ]


def test_blockquote_is_a_container() -> None:
    tree = normalize("<blockquote><p>One</p>Two</blockquote>")
    assert [(n.kind, n.text) for n in tree.nodes[1:]] == [
        ("blockquote", ""),
        ("paragraph", "One"),
        ("paragraph", "Two"),
    ]


# -- tables -------------------------------------------------------------------------------


def test_table_rows_are_pipe_rows_with_a_header_delimiter() -> None:
    source = (
        "<table><caption>Fruit</caption><thead><tr><th>Name<th align=right>Qty"
        '<th style="text-align: center">Note</thead>'
        "<tbody><tr><td>pear<td>3<td></tr><tr><td>fig</td><td>10</td><td>ripe</td></tr></tbody></table>"
    )
    tree = normalize(source)
    assert dict(only(tree, "table").attributes) == {"align": ("none", "right", "center")}
    rows = [(n.text, n.attributes["header"]) for n in tree.nodes if n.kind == "table_row"]
    assert rows == [
        ("| Name | Qty | Note |\n|---|---:|:---:|", True),
        ("| pear | 3 |  |", False),
        ("| fig | 10 | ripe |", False),
    ]
    assert only(tree, "caption").text == "Fruit"
    row = [n for n in tree.nodes if n.kind == "table_row"][1]
    assert source_of(tree, row, "pear") == "pear"


def test_a_pipe_in_a_cell_is_escaped_and_maps_to_its_source() -> None:
    # Rust's operator table: "| | | pat | pat |" read as five cells, not two.
    source = (
        "<p>a | b</p><table><tr><th>Symbol</th><th>Explanation</th></tr>"
        "<tr><td><code>|</code></td><td><code>pat | pat</code>, x &#124; y</td></tr></table>"
    )
    tree = normalize(source)
    rows = [n for n in tree.nodes if n.kind == "table_row"]
    assert rows[1].text == "| \\| | pat \\| pat, x \\| y |"
    assert only(tree, "paragraph").text == "a | b"  # outside a table: as written
    escapes = [
        s for s in rows[1].serialization if rows[1].text[s.display_start : s.display_end] == "\\|"
    ]
    assert [tree.content[s.source_start : s.source_end] for s in escapes] == ["|", "|", "&#124;"]


def test_header_row_without_thead_and_rows_without_tr() -> None:
    tree = normalize("<table><tr><th>A</th><th>B</th></tr><td>stray<td>cells</table>")
    rows = [(n.text, n.attributes["header"]) for n in tree.nodes if n.kind == "table_row"]
    assert rows == [("| A | B |\n|---|---|", True), ("| stray | cells |", False)]


def test_row_headers_do_not_make_header_rows() -> None:
    tree = normalize("<table><tr><td>a</td></tr><tr><th>Key:</th><td>value</td></tr></table>")
    rows = [(n.text, n.attributes["header"]) for n in tree.nodes if n.kind == "table_row"]
    assert rows == [("| a |", False), ("| Key: | value |", False)]


def test_blocks_inside_cells_are_flattened() -> None:
    tree = normalize("<table><tr><td><p>one</p><ul><li>two</ul><pre>three</pre></td><td>4</table>")
    assert [n.kind for n in tree.nodes] == ["document", "table", "table_row"]
    assert only(tree, "table_row").text == "| one two three | 4 |"


@pytest.mark.parametrize("inner", ["<h2>Title</h2>", "<table><tr><td>in</td></tr></table>"])
def test_a_heading_or_table_in_a_cell_makes_a_layout_table(inner: str) -> None:
    source = (
        f"<table><tr><td>logo</td><td>{inner}<p>Body</p></td></tr><tr><td>end</td></tr></table>"
    )
    tree = normalize(source)
    assert [(n.kind, n.text) for n in tree.nodes][:3] == [
        ("document", ""),
        ("table", ""),
        ("table_row", "| logo |  |"),  # the second cell had begun
    ]
    rest = [(n.kind, n.text) for n in tree.nodes[3:]]
    assert ("paragraph", "Body") in rest and ("paragraph", "end") in rest
    assert not [n for n in tree.nodes[3:] if n.kind == "table_row" and "Body" in n.text]


# -- code ---------------------------------------------------------------------------------


def test_pre_is_verbatim_without_its_first_newline() -> None:
    source = '<pre class="language-python">\ndef f():\n    return 1 &lt; 2\n\n</pre>'
    tree = normalize(source)
    code = only(tree, "code")
    assert code.text == "def f():\n    return 1 < 2"
    assert dict(code.attributes) == {"language": "python"}
    assert source_of(tree, code, "<") == "&lt;"
    (unit,) = tree.units
    # The newline dropped after <pre> is the unit's; the trailing ones are not shown.
    assert tree.content[unit.span.start : unit.span.end] == "\ndef f():\n    return 1 &lt; 2"


def test_blank_lines_around_code_are_trimmed_but_indentation_kept() -> None:
    tree = normalize("<pre><b>\n\n  first</b>\nsecond\n\n</pre>")
    code = only(tree, "code")
    assert code.text == "  first\nsecond"
    assert source_of(tree, code, "  first") == "  first"


@pytest.mark.parametrize(
    ("source", "language"),
    [
        ('<pre><code class="language-rust">fn main() {}</code></pre>', "rust"),
        (
            '<div class="highlight-python3 notranslate">'
            '<div class="highlight"><pre>x</pre></div></div>',
            "python3",
        ),
        ('<div class="highlight-default"><pre>x</pre></div>', None),
        ("<pre>plain</pre>", None),
    ],
)
def test_code_language(source: str, language: str | None) -> None:
    assert only(normalize(source), "code").attributes.get("language") == language


def test_highlighted_code_keeps_every_token() -> None:
    source = (
        '<pre><span></span><span class="k">if</span> <span class="n">x</span>:\n'
        '    <span class="k">pass</span></pre>'
    )
    code = only(normalize(source), "code")
    assert code.text == "if x:\n    pass"
    assert [code.text[r.display_start : r.display_end] for r in code.serialization] == [
        "if",
        " ",
        "x",
        ":\n    ",
        "pass",
    ]


def test_tags_inside_pre_are_flattened_not_structure() -> None:
    tree = normalize("<pre><h1>Not a heading</h1>\n<p>nor a paragraph</p></pre>")
    assert [n.kind for n in tree.nodes] == ["document", "code"]
    assert only(tree, "code").text == "Not a heading\nnor a paragraph"


# -- links, images ------------------------------------------------------------------------


def test_links_are_text_with_targets_in_attributes() -> None:
    tree = normalize(
        '<p>See <a href="a.html#x">the <em>docs</em></a> and <a href=b>b</a>.</p>'
        "<a name=anchor></a>"
    )
    paragraph = only(tree, "paragraph")
    assert paragraph.text == "See the docs and b."
    assert paragraph.attributes["links"] == (("the docs", "a.html#x"), ("b", "b"))


def test_image_alt_text_is_inline_and_owned() -> None:
    source = '<p>Look: <img src="p.png" alt="a &amp; pear"> here</p><img src=x.png>'
    tree = normalize(source)
    paragraph = only(tree, "paragraph")
    assert paragraph.text == "Look: a & pear here"
    assert paragraph.attributes["images"] == (("a & pear", "p.png"),)
    assert source_of(tree, paragraph, "a & pear") == "a &amp; pear"


# -- exclusions ---------------------------------------------------------------------------


def test_script_style_template_noscript_and_comments_are_excluded_whole() -> None:
    source = (
        "<!DOCTYPE html><p>a</p><script>if (a < b) { x('<p>no</p>') }</script>"
        "<style>p { }</style><template><p>tpl</p></template><noscript><p>js</p></noscript>"
        "<!-- <h1>c</h1> --><?php echo 1 ?><p>b</p>"
    )
    tree = normalize(source)
    assert leaves(tree) == [("paragraph", "a"), ("paragraph", "b")]
    assert reasons(tree) == ["script", "style", "template", "noscript", "comment"]
    spans = {e.reason: tree.content[e.span.start : e.span.end] for e in tree.exclusions}
    assert spans["script"] == "<script>if (a < b) { x('<p>no</p>') }</script>"
    assert spans["template"] == "<template><p>tpl</p></template>"


def test_comment_inside_text_joins_the_words() -> None:
    assert only(normalize("<p>foo<!-- x -->bar</p>"), "paragraph").text == "foobar"


def test_whitespace_between_blocks_is_whitespace() -> None:
    tree = normalize("<p>a</p>\n \r\n<p>b</p>")
    assert [(e.span.start, e.span.end) for e in tree.exclusions if e.reason == "whitespace"] == [
        (8, 12)
    ]


# -- registry, identity, options ----------------------------------------------------------


def test_registry_selects_the_html_adapter() -> None:
    document = Document("d", "t", "<h1>T</h1><p>x</p>", {"content_format": "html"})
    tree = NormalizerRegistry().normalize(document)
    assert tree.format == "html"
    assert [n.kind for n in tree.nodes] == ["document", "section", "heading", "paragraph"]


def test_identity_names_the_parser_and_changes_with_options() -> None:
    assert HtmlNormalizer.identity == "html:html.parser-3.11.7:v43"
    assert HtmlNormalizer().identity == HtmlNormalizer.identity
    assert HtmlNormalizer(max_characters=10).identity == HtmlNormalizer.identity
    changed = {
        HtmlNormalizer(max_depth=5).identity,
        HtmlNormalizer(max_table_cells=5).identity,
        HtmlNormalizer(remove_boilerplate=False).identity,
    }
    assert len(changed) == 3 and HtmlNormalizer.identity not in changed


@pytest.mark.parametrize(
    "options",
    [
        {"max_depth": 0},
        {"max_characters": -1},
        {"max_table_cells": 1.5},
        {"remove_boilerplate": "yes"},
    ],
)
def test_bad_options_are_refused_naming_the_option(options: dict[str, object]) -> None:
    from fastrag.exceptions import ConfigurationError

    name = next(iter(options))
    with pytest.raises(ConfigurationError, match=name):
        HtmlNormalizer(**options)  # type: ignore[arg-type]


def test_output_is_deterministic() -> None:
    from fastrag.normalization.dump import dump_tree

    source = "<h1>T</h1><ul><li>a<li>b</ul><table><tr><td>1</table>"
    assert dump_tree(normalize(source)) == dump_tree(normalize(source))
