"""RstNormalizer: each construct's nodes, attributes and exact source ownership."""

from __future__ import annotations

import gc
from concurrent.futures import ThreadPoolExecutor

import pytest

from fastrag.exceptions import ConfigurationError, NormalizationError
from fastrag.models import Document
from fastrag.normalization import NormalizedDocument, NormalizedNode, NormalizerRegistry
from fastrag.normalization.formats.rst import RstNormalizer

NORMALIZER = RstNormalizer()


def normalize(source: str, normalizer: RstNormalizer = NORMALIZER) -> NormalizedDocument:
    return normalizer.normalize(Document("doc", "test", source, {"content_format": "rst"}))


def kinds(tree: NormalizedDocument, kind: str) -> list[NormalizedNode]:
    return [node for node in tree.nodes if node.kind == kind]


def owned(tree: NormalizedDocument, node: NormalizedNode) -> list[str]:
    return [unit.span.slice(tree.content) for unit in tree.units if unit.node_id == node.node_id]


def excluded(tree: NormalizedDocument, reason: str) -> list[str]:
    return [e.span.slice(tree.content) for e in tree.exclusions if e.reason == reason]


def test_titles_in_every_style_open_nested_sections() -> None:
    # Over- and underlined "=" is one style, underlined "=" another: Deeper is level 3.
    source = "=====\nTitle\n=====\n\nSub\n---\n\nDeeper\n======\n\nbody\n\n=====\nOther\n=====\n"
    tree = normalize(source)
    sections = kinds(tree, "section")
    assert [(s.text, s.level) for s in sections] == [
        ("Title", 1),
        ("Sub", 2),
        ("Deeper", 3),
        ("Other", 1),
    ]
    title, sub, _, other = kinds(tree, "heading")
    assert owned(tree, title) == ["=====\nTitle\n====="]
    assert owned(tree, sub) == ["Sub\n---"]
    assert (title.text, title.level, other.level) == ("Title", 1, 1)
    assert tree.node(sub.parent_id or "").text == "Sub"
    assert tree.node(sections[1].parent_id or "") is sections[0]
    assert sections[1].spans[0].slice(source) == "Sub\n---\n\nDeeper\n======\n\nbody"
    assert tree.root.text == "Title"


# Python docs (PSF licence), Doc/library/json.rst and Doc/howto/logging.rst: titles with roles.
PYTHON_TITLES = (
    ":mod:`json` --- JSON encoder and decoder\n"
    "========================================\n\n"
    "Using ``__slots__`` with :class:`~logging.Handler`\n"
    "--------------------------------------------------\n\n"
    "See :ref:`the logging tutorial <logging-basic-tutorial>` and `PEP 8 <https://x>`_.\n\n"
    "**Bold**, *emphasis*, a 2*3*4 product and a \\*literal star\\*\n"
    "-------------------------------------------------------------\n\n"
    "body\n"
)


def test_titles_name_sections_by_their_readable_text_and_keep_their_source() -> None:
    tree = normalize(PYTHON_TITLES)
    assert [s.text for s in kinds(tree, "section")] == [
        "json --- JSON encoder and decoder",
        "Using __slots__ with Handler",
        "Bold, emphasis, a 2*3*4 product and a *literal star*",
    ]
    headings = kinds(tree, "heading")
    assert [h.text for h in headings] == [s.text for s in kinds(tree, "section")]
    # The heading still owns its exact source, roles and adornment included.
    assert owned(tree, headings[0]) == [PYTHON_TITLES[: PYTHON_TITLES.index("\n\n")]]
    paragraph = kinds(tree, "paragraph")[0]  # inline markup outside titles is kept as is
    assert paragraph.text.startswith("See :ref:`the logging tutorial <logging-basic-tutorial>`")


def test_titles_show_text_substitutions_as_they_read() -> None:
    # pyasn1 titles each type's page "|ASN.1| type" over ".. |ASN.1| replace:: BitString":
    # every chunk of the page was under a heading path of "|ASN.1| type".
    source = (
        ".. |ASN.1| replace:: BitString\n.. |v| replace:: *3.2*\n"
        ".. |logo| image:: logo.png\n\n"
        "|ASN.1| type\n============\n\nBody.\n\n"
        "Version |v| and |undefined|\n---------------------------\n\nMore.\n\n"
        "|logo| Project\n--------------\n\nEnd.\n"
    )
    tree = normalize(source)
    assert [s.text for s in kinds(tree, "section")] == [
        "BitString type",
        "Version 3.2 and |undefined|",
        "|logo| Project",
    ]
    assert [h.text for h in kinds(tree, "heading")] == [s.text for s in kinds(tree, "section")]
    assert owned(tree, kinds(tree, "heading")[0]) == ["|ASN.1| type\n============"]


# Python docs (PSF licence), Doc/faq/programming.rst: Sphinx file-wide metadata first.
FAQ_HEAD = (
    ":tocdepth: 2\n\n.. _programming-faq:\n\n===============\nProgramming FAQ\n===============\n"
)


def test_leading_sphinx_metadata_fields_are_markup_other_field_lists_stay() -> None:
    tree = normalize(FAQ_HEAD)
    assert excluded(tree, "markup") == [":tocdepth: 2", ".. _programming-faq:"]
    assert kinds(tree, "field_list") == []
    assert ":orphan:\n:nosearch:" in excluded(normalize(":orphan:\n:nosearch:\n\nText\n"), "markup")
    # Bibliographic fields render, and metadata fields count only before any content.
    for kept in (":Author: Me\n\nText\n", "Text\n\n:tocdepth: 2\n", ":orphan:\n:Author: Me\n"):
        assert len(kinds(normalize(kept), "field_list")) == 1, kept


def test_paragraph_is_its_exact_source_with_inline_markup_and_links() -> None:
    source = (
        "See `Python <https://python.org>`_, :func:`open`, ref_ and\n"
        "https://example.com/x.\n\n.. _ref: https://ref.example\n"
    )
    tree = normalize(source)
    (paragraph,) = kinds(tree, "paragraph")
    assert paragraph.text == source[: source.index("\n\n")]
    assert paragraph.attributes["links"] == (
        ("Python", "https://python.org"),
        ("ref", "https://ref.example"),
        ("https://example.com/x", "https://example.com/x"),
    )
    assert excluded(tree, "markup") == [".. _ref: https://ref.example"]


@pytest.mark.parametrize(
    ("source", "code_text", "language"),
    [
        ("Example::\n\n    Title\n    =====\n", "Title\n    =====", None),
        ("::\n\n    x = 1\n", "::\n\n    x = 1", None),
        (".. highlight:: c\n\nDo::\n\n   int x;\n", "int x;", "c"),
        (
            ".. code-block:: python\n   :linenos:\n\n   x = 1\n",
            ".. code-block:: python\n   :linenos:\n\n   x = 1",
            "python",
        ),
        (".. sourcecode:: js\n\n   f()\n", ".. sourcecode:: js\n\n   f()", "js"),
        (".. doctest::\n\n   >>> 1\n   1\n", ".. doctest::\n\n   >>> 1\n   1", "pycon"),
        (">>> print(1)\n1\n", ">>> print(1)\n1", "pycon"),
    ],
)
def test_code_blocks_keep_their_markup_and_language(
    source: str, code_text: str, language: str | None
) -> None:
    tree = normalize(source)
    (code,) = kinds(tree, "code")
    assert code.text == code_text
    assert code.attributes.get("language") == language
    assert not kinds(tree, "heading")


def test_nested_lists_carry_labels_depth_and_own_their_markers() -> None:
    source = "- one\n  more\n\n  - inner\n\n3. three\n4. four\n\n(a) alpha\n"
    tree = normalize(source)
    lists = kinds(tree, "list")
    assert [dict(node.attributes) for node in lists] == [
        {"ordered": False},
        {"ordered": False},
        {"ordered": True, "start": 3},
        {"ordered": True, "start": 1},
    ]
    items = kinds(tree, "list_item")
    assert [(i.attributes["label"], i.attributes["depth"]) for i in items] == [
        ("-", 1),
        ("-", 2),
        ("3.", 1),
        ("4.", 1),
        ("(a)", 1),
    ]
    assert owned(tree, items[0]) == ["-"]
    assert items[0].text == ""
    assert [p.text for p in kinds(tree, "paragraph")][:2] == ["one\n  more", "inner"]


def test_definition_field_and_option_lists() -> None:
    source = (
        "term : classifier\n   Definition.\n\n:Author: Me\n:param x: the x\n\n"
        "-v, --verbose  Be loud.\n"
    )
    tree = normalize(source)
    (term,) = kinds(tree, "definition_term")
    assert term.text == "term : classifier"
    (definition,) = kinds(tree, "definition")
    assert [tree.node(c).text for c in definition.children] == ["Definition."]
    fields = kinds(tree, "field")
    assert [f.attributes["name"] for f in fields] == ["Author", "param x"]
    assert owned(tree, fields[1]) == [":param x:"]
    (option,) = [i for i in kinds(tree, "list_item") if i.attributes["label"].startswith("-v")]
    assert option.attributes["label"] == "-v, --verbose"
    assert [tree.node(c).text for c in option.children] == ["Be loud."]


@pytest.mark.parametrize(
    ("source", "rows"),
    [
        (
            "+---+---+\n| a | b |\n+===+===+\n| 1 | 2 |\n+---+---+\n",
            [("+---+---+\n| a | b |\n+===+===+", True), ("| 1 | 2 |\n+---+---+", False)],
        ),
        (
            "==  ==\na   b\n==  ==\n1   2\n3   4\n==  ==\n",
            [("==  ==\na   b\n==  ==", True), ("1   2", False), ("3   4\n==  ==", False)],
        ),
        (
            ".. list-table::\n   :header-rows: 1\n\n   * - a\n     - b\n   * - 1\n     - 2\n",
            [("* - a\n     - b", True), ("* - 1\n     - 2", False)],
        ),
    ],
)
def test_table_rows_are_leaves_with_header_flags(source: str, rows: list[tuple[str, bool]]) -> None:
    tree = normalize(source)
    (table,) = kinds(tree, "table")
    assert table.attributes["columns"] == 2
    assert [(r.text, r.attributes["header"]) for r in kinds(tree, "table_row")] == rows


def test_admonition_owns_its_marker_and_its_body_is_parsed() -> None:
    source = ".. note:: First line\n   continues.\n\n   - a list\n"
    tree = normalize(source)
    (note,) = kinds(tree, "admonition")
    assert note.attributes == {"name": "note"}
    assert owned(tree, note) == [".. note::"]
    assert [tree.node(c).kind for c in note.children] == ["paragraph", "list"]
    assert tree.node(note.children[0]).text == "First line\n   continues."


def test_unknown_sphinx_directives_are_containers_with_name_and_argument() -> None:
    source = (
        ".. function:: open(file, mode='r')\n   :noindex:\n\n   Opens *file*.\n\n"
        "   .. versionadded:: 3.2\n      Explanation.\n\n.. seealso::\n   Module :mod:`io`.\n"
    )
    tree = normalize(source)
    function, versionadded = kinds(tree, "directive")
    assert function.attributes == {"name": "function", "argument": "open(file, mode='r')"}
    assert owned(tree, function) == [".. function:: open(file, mode='r')\n   :noindex:"]
    assert versionadded.attributes["argument"] == "3.2 Explanation."
    assert versionadded.text == ".. versionadded:: 3.2\n      Explanation."
    (seealso,) = kinds(tree, "admonition")
    assert seealso.attributes == {"name": "seealso"}
    assert [tree.node(c).text for c in seealso.children] == ["Module :mod:`io`."]
    assert not tree.diagnostics


def test_comments_targets_and_markup_directives_are_excluded() -> None:
    source = (
        ".. a comment\n   spanning lines\n\n..\n\n.. _label:\n\n__ https://anon.example\n\n"
        ".. index:: single: x\n\n.. role:: custom\n\nText.\n"
    )
    tree = normalize(source)
    assert excluded(tree, "comment") == [".. a comment\n   spanning lines", ".."]
    assert excluded(tree, "markup") == [
        ".. _label:",
        "__ https://anon.example",
        ".. index:: single: x",
        ".. role:: custom",
    ]
    assert [node.text for node in tree.nodes[1:]] == ["Text."]


def test_an_autodoc_directive_with_a_body_keeps_it_and_the_object_it_names() -> None:
    # pyasn1's type pages are an autoclass whose body holds the page's one sentence of
    # prose: as markup, the page had nothing to retrieve but its title.
    source = (
        "BitString type\n--------------\n\n"
        ".. autoclass:: pyasn1.type.univ.BitString(value=NoValue())\n"
        "   :members: isValue, asInteger\n\n"
        "   .. note::\n\n        The type models an arbitrary sequence of bits.\n\n"
        "   .. automethod:: pyasn1.type.univ.BitString.clone(value=NoValue())\n\n"
        ".. autofunction:: pyasn1.codec.ber.decoder.decode\n"
    )
    tree = normalize(source)
    assert excluded(tree, "markup") == [
        ".. automethod:: pyasn1.type.univ.BitString.clone(value=NoValue())",
        ".. autofunction:: pyasn1.codec.ber.decoder.decode",
    ]
    (directive,) = kinds(tree, "directive")
    assert dict(directive.attributes) == {
        "name": "autoclass",
        "argument": "pyasn1.type.univ.BitString(value=NoValue())",
    }
    assert [node.text for node in kinds(tree, "paragraph")] == [
        "The type models an arbitrary sequence of bits."
    ]
    retained = "".join(unit.span.slice(tree.content) for unit in tree.units)
    assert "autoclass:: pyasn1.type.univ.BitString(value=NoValue())" in retained


def test_linked_images_are_badges_whatever_their_alt_text() -> None:
    # six's README opened its first chunk with four of these (about a hundred tokens).
    source = (
        ".. image:: https://img.shields.io/pypi/v/six.svg\n"
        "   :target: https://pypi.org/project/six/\n   :alt: six on PyPI\n\n"
        ".. image:: https://img.shields.io/badge/license-MIT-green.svg\n"
        "   :target: https://github.com/benjaminp/six/blob/master/LICENSE\n"
        "   :alt: MIT License badge\n\n"
        "Six is a Python 2 and 3 compatibility library.\n\n"
        ".. image:: diagram.png\n   :alt: How six maps names\n"
    )
    tree = normalize(source)
    assert len(excluded(tree, "badges")) == 2
    assert [node.text for node in tree.nodes if node.kind in ("paragraph", "image")] == [
        "Six is a Python 2 and 3 compatibility library.",
        ".. image:: diagram.png\n   :alt: How six maps names",  # not linked: it stays
    ]


def test_meta_navigation_autodoc_and_images_without_alt_text_are_markup() -> None:
    # A redirect stub (pip's moved pages) and a README's badges used to become chunks
    # of options, file names and URLs.
    source = (
        ".. meta::\n   :http-equiv=refresh: 3; url=../x/\n   :description lang=en: Moved\n\n"
        "Title\n=====\n\n.. contents:: Table of Contents\n   :local:\n\n.. sectnum::\n\n"
        ".. toctree::\n   :maxdepth: 2\n\n   intro\n   usage\n\n"
        ".. image:: https://ci.example/badge.svg\n   :target: https://ci.example\n\n"
        ".. image:: banner.svg\n   :align: center\n\n"
        ".. image:: logo.png\n   :alt: The project logo\n\n"
        ".. figure:: plot.png\n\n   What the plot shows.\n\n"
        ".. automodule:: fastrag.packing\n   :members:\n\n"
        ".. autofunction:: fastrag.packing.pack\n\nText.\n"
    )
    tree = normalize(source)
    assert excluded(tree, "markup") == [
        ".. meta::\n   :http-equiv=refresh: 3; url=../x/\n   :description lang=en: Moved",
        ".. contents:: Table of Contents\n   :local:",
        ".. sectnum::",
        ".. toctree::\n   :maxdepth: 2\n\n   intro\n   usage",
        ".. image:: banner.svg\n   :align: center",
        ".. automodule:: fastrag.packing\n   :members:",
        ".. autofunction:: fastrag.packing.pack",
    ]
    assert excluded(tree, "badges") == [
        ".. image:: https://ci.example/badge.svg\n   :target: https://ci.example",
    ]
    assert [node.text for node in kinds(tree, "image")] == [
        ".. image:: logo.png\n   :alt: The project logo",
        ".. figure:: plot.png\n\n   What the plot shows.",
    ]
    assert not tree.diagnostics


def test_an_unknown_directive_naming_only_a_file_is_markup() -> None:
    # CMake's module pages are one line: the text comes from the .cmake file, never read.
    tree = normalize(".. cmake-module:: ../../Modules/FindBZip2.cmake\n")
    assert excluded(tree, "markup") == [".. cmake-module:: ../../Modules/FindBZip2.cmake"]
    assert not tree.units
    source = (
        "Title\n=====\n\n.. kernel-doc:: include/linux/list.h\n\n"
        ".. kernel-doc:: include/linux/list.h\n   :export:\n\n"  # options: kept
        ".. versionadded:: 3.2\n\n.. module:: email.mime.text\n\n.. data:: sys.argv\n"
    )
    tree = normalize(source)
    assert excluded(tree, "markup") == [".. kernel-doc:: include/linux/list.h"]
    assert [node.attributes["argument"] for node in kinds(tree, "directive")] == [
        "include/linux/list.h",
        "3.2",
        "email.mime.text",
        "sys.argv",
    ]


def test_a_build_condition_line_is_markup_and_its_body_stays() -> None:
    # CMake's and Python's docs: ".. only:: html" showed as text, "html" as a paragraph.
    source = (
        "Title\n=====\n\n.. only:: html\n\n   .. contents::\n\nText.\n\n"
        ".. only:: latex\n\n   Printed only.\n\n.. ifconfig:: level in ('alpha',)\n\n   Alpha.\n"
    )
    tree = normalize(source)
    assert excluded(tree, "markup") == [
        ".. only:: html",
        ".. contents::",
        ".. only:: latex",
        ".. ifconfig:: level in ('alpha',)",
    ]
    assert [tree.content[u.span.start : u.span.end] for u in tree.units] == [
        "Title\n=====",
        "Text.",
        "Printed only.",
        "Alpha.",
    ]


def test_sphinx_indices_and_tables_section_is_markup() -> None:
    source = (
        "Guide\n=====\n\nIntro.\n\nIndices and tables\n==================\n\n"
        "* :ref:`genindex`\n* :ref:`modindex`\n* :ref:`search`\n\n"
        "Search tips\n===========\n\n* :ref:`search` finds words.\n"
    )
    tree = normalize(source)
    assert excluded(tree, "markup") == [
        "Indices and tables\n==================\n\n"
        "* :ref:`genindex`\n* :ref:`modindex`\n* :ref:`search`"
    ]
    assert [node.text for node in kinds(tree, "heading")] == ["Guide", "Search tips"]


def test_footnotes_citations_substitutions_quotes_line_blocks_transitions() -> None:
    source = (
        ".. [1] A note.\n.. [CIT] A citation.\n\n.. |name| replace:: text\n\nPara.\n\n"
        "    Quoted.\n\n    -- Someone\n\n| line one\n|    line two\n\n----------\n\nEnd.\n"
    )
    tree = normalize(source)
    note, citation = kinds(tree, "footnote")
    assert note.attributes == {"label": "1"}
    assert citation.attributes == {"label": "CIT", "citation": True}
    assert owned(tree, note) == [".. [1]"]
    (substitution,) = kinds(tree, "directive")
    assert substitution.attributes == {"name": "substitution", "argument": "name"}
    (quote,) = kinds(tree, "blockquote")
    assert [tree.node(c).text for c in quote.children] == ["Quoted.", "-- Someone"]
    assert tree.node(quote.children[1]).attributes == {"attribution": True}
    (lines,) = kinds(tree, "line_block")
    assert lines.text == "| line one\n|    line two"
    assert "----------" in excluded(tree, "markup")  # a transition shows no text


def test_a_line_block_of_empty_lines_is_markup() -> None:
    # aiohttp's README: a logo, then "|" alone for space before its badges.
    tree = normalize(".. image:: logo.svg\n   :alt: aiohttp logo\n\n|\n|\n\nText.\n")
    assert kinds(tree, "line_block") == []
    assert "|\n|" in excluded(tree, "markup")


def test_refused_and_failed_directives() -> None:
    source = (
        ".. include:: other.rst\n\n.. raw:: html\n\n   <b>x</b>\n\n"
        ".. csv-table::\n   :file: data.csv\n\n.. image::\n\nAfter.\n"
    )
    tree = normalize(source)
    assert excluded(tree, "directive") == [
        ".. include:: other.rst",
        ".. raw:: html\n\n   <b>x</b>",
        ".. csv-table::\n   :file: data.csv",
    ]
    assert sum("refused" in d for d in tree.diagnostics) == 3
    (image,) = kinds(tree, "directive")
    assert image.attributes == {"name": "image", "error": True}
    assert image.text == ".. image::"


def test_a_refused_directive_in_a_substitution_definition_is_excluded_whole() -> None:
    # READMEs define line breaks so: ".. |br| raw:: html". docutils dropped the definition
    # (only inline content may stand there), and its first line ran into the paragraph
    # before it while its HTML became a paragraph of its own.
    definition = ".. |br| raw:: html\n\n   <br />"
    tree = normalize(f"Text |br| here.\n\n{definition}\n\nAfter.\n")
    assert [node.text for node in kinds(tree, "paragraph")] == ["Text |br| here.", "After."]
    assert excluded(tree, "directive") == [definition]
    assert tree.diagnostics == (
        "offset 17: 'raw' directive refused (no file, URL or raw access); its source is excluded",
    )
    # A text substitution in the same document still shows in titles.
    titled = normalize(
        f"|name| guide\n============\n\n{definition}\n\n.. |name| replace:: Widget\n"
    )
    assert [node.text for node in kinds(titled, "heading")] == ["Widget guide"]


def test_text_docutils_drops_is_kept_never_excluded() -> None:
    source = ".. comment\n\n+-----+\n| bad |\n+--+\n\nInconsistent\n~~~~~~~~~~~~\n\nA\n=\n"
    tree = normalize(source)
    texts = [node.text for node in kinds(tree, "paragraph")]
    assert "+-----+\n| bad |\n+--+" in texts
    assert excluded(tree, "comment") == [".. comment"]
    assert any("Malformed table" in d for d in tree.diagnostics)


def test_images_and_figures() -> None:
    source = ".. image:: a.png\n   :alt: A\n\n.. figure:: b.png\n\n   Caption.\n"
    tree = normalize(source)
    assert [(i.attributes["uri"], i.text.split("\n")[0]) for i in kinds(tree, "image")] == [
        ("a.png", ".. image:: a.png"),
        ("b.png", ".. figure:: b.png"),
    ]


def test_registry_selects_the_rst_adapter() -> None:
    document = Document("d", "s", "Hello\n=====\n", {"content_format": "rst"})
    tree = NormalizerRegistry().normalize(document)
    assert tree.format == "rst"
    assert [node.kind for node in tree.nodes] == ["document", "section", "heading"]


def test_identity_names_docutils_and_non_default_options() -> None:
    import docutils

    assert RstNormalizer.identity == f"rst:docutils-{docutils.__version__}:v16"
    assert NORMALIZER.identity == RstNormalizer.identity
    changed = RstNormalizer(max_depth=8, max_table_cells=10)
    assert changed.identity == f"{RstNormalizer.identity}:max_depth=8:max_table_cells=10"


@pytest.mark.parametrize("option", ["max_characters", "max_depth", "max_table_cells"])
@pytest.mark.parametrize("value", [0, -1, 1.5, "3", True])
def test_invalid_options_are_configuration_errors(option: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=option):
        RstNormalizer(**{option: value})  # type: ignore[arg-type]


def test_too_long_input_names_the_limit() -> None:
    with pytest.raises(NormalizationError, match=r"max_characters=10"):
        normalize("x" * 11, RstNormalizer(max_characters=10))


def test_ids_are_positional_and_deterministic() -> None:
    source = "Title\n=====\n\nText.\n"
    first, second = normalize(source), normalize(source)
    assert [n.node_id for n in first.nodes] == [
        "doc:document:0",
        "doc:section:1",
        "doc:heading:2",
        "doc:paragraph:3",
    ]
    assert first == second
    assert [u.unit_id for u in first.units] == ["doc:u0", "doc:u1"]


# Found by hypothesis: docutils cuts a grid table at an earlier border when its bottom
# border is corrupt, then numbers the rows two lines early and re-reads those lines as
# the next block. The table is kept as text at the line it really starts on.
CUT_TABLE = (
    "+------+------+------+\n| a    | a    | a    |\n+======+======+======+\n"
    "| a    | a    | a    |\n+------+------+------+\n| a    | a    | a    |\n"
    "+------+------+-----\n"
)


@pytest.mark.parametrize(
    "prefix",
    [
        "pear\n \nTitle\n=====\n \n.. note::\n\n   pear\n \n",
        "Title\n=====\n \n=====\nTitle\n=====\n",
    ],
)
def test_a_grid_table_cut_at_a_corrupt_border_keeps_every_line_where_it_is(prefix: str) -> None:
    content = prefix + CUT_TABLE
    tree = RstNormalizer().normalize(Document("cut", "s", content, {"content_format": "rst"}))
    table = next(node for node in tree.nodes if node.kind == "table")
    assert table.attributes["flattened"] is True
    assert content[table.start : table.end].startswith("+------+")
    for unit in tree.units:
        node = tree.node(unit.node_id)
        if node.kind not in ("heading", "admonition"):
            assert node.text == content[unit.span.start : unit.span.end]
    assert any("corrupt border" in diagnostic for diagnostic in tree.diagnostics)


def _list_heavy(variant: str) -> str:
    """Lists of every kind docutils parses with a nested state machine of its own."""
    blocks = []
    for index in range(12):
        blocks.append(f"- {variant} item {index}\n- second\n\n  a. nested {index}\n  b. more\n")
        blocks.append(f"{index + 1}. numbered\n{index + 2}. next\n")
        blocks.append("(i) roman\n(ii) roman again\n")
        blocks.append(f"term {index}\n   definition of {variant}\n")
        blocks.append(f":field {index}: value\n:other: {variant}\n")
        blocks.append(f"-a{index}  an option\n--long  another\n")
        blocks.append(f".. [#] a footnote {index}\n.. note:: {variant}\n")
    return "Title\n=====\n\n" + "\n".join(blocks)


def test_lists_reuse_state_machines_within_a_parse_and_none_across(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # docutils builds a nested state machine per list (fifteen states compiling their
    # transitions each time: most of the parse on Sphinx sources); the adapter reuses
    # them within one parse, and must give exactly the tree a fresh machine gives.
    states = pytest.importorskip("docutils.parsers.rst.states")
    built = []
    original = states.NestedStateMachine.__init__

    def counting(self: object, *args: object, **kwargs: object) -> None:
        built.append(kwargs.get("initial_state"))
        original(self, *args, **kwargs)

    source = _list_heavy("x")
    fresh = normalize(source, RstNormalizer())
    monkeypatch.setattr(states.NestedStateMachine, "__init__", counting)
    reused = RstNormalizer()
    normalize(_list_heavy("other"), reused)  # a different document first
    built.clear()
    tree = normalize(source, reused)
    assert tree == fresh
    assert [len(kinds(tree, kind)) for kind in ("list", "definition_list", "field_list")] == [
        48,
        12,
        12,
    ]
    assert len(built) <= 6  # one per nesting level in use, not one per list (~100)


def test_the_doctree_is_freed_by_reference_counting_not_left_to_the_collector() -> None:
    # A doctree is one large reference cycle (parents, the document, state machines'
    # bound transitions): left to the cyclic collector it was walked by every full
    # collection until one freed it. The adapter unlinks it once the tree is built.
    source = (
        _list_heavy("x") + "\n.. _target:\n\nSection\n=======\n\n+---+---+\n| a | b |\n+===+===+\n"
        "| c | d |\n+---+---+\n\n.. |sub| replace:: text\n\n::\n\n  literal\n"
    )
    normalizer = RstNormalizer()
    normalize(source, normalizer)
    gc.collect()
    gc.disable()
    try:
        tree = normalize(source, normalizer)
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert kinds(tree, "table_row")
    assert unreachable < 100  # thousands before (6,524 objects for this document)


BADGES = (
    "|Logo|\n\n|PyPI| |CI|_\n|Docs|\n\n|PyPI| |version|\n\n|PyPI| and text\n\n"
    ".. |Logo| image:: https://example.org/logo.png\n"
    ".. |PyPI| image:: https://img.shields.io/pypi/v/x.svg\n   :target: https://pypi.org/x\n"
    ".. |CI| image:: https://ci.example.org/badge.svg\n"
    ".. |Docs| image:: https://docs.example.org/badge.svg\n   :target: https://docs.example.org\n"
    ".. |version| replace:: 1.2\n"
)


def test_image_substitutions_and_rows_of_them_show_no_text() -> None:
    # A README's badge row is references to image substitutions defined at the end: the
    # row's own source is names, each definition a URL and options; a chunk of either
    # embedded nothing readable. Text substitutions and mixed paragraphs stay.
    tree = normalize(BADGES)
    assert excluded(tree, "badges") == ["|PyPI| |CI|_\n|Docs|"]  # every image linked
    assert excluded(tree, "markup") == [
        "|Logo|",  # an unlinked image (a logo)
        ".. |Logo| image:: https://example.org/logo.png",
        ".. |PyPI| image:: https://img.shields.io/pypi/v/x.svg\n   :target: https://pypi.org/x",
        ".. |CI| image:: https://ci.example.org/badge.svg",
        ".. |Docs| image:: https://docs.example.org/badge.svg\n   :target: https://docs.example.org",
    ]
    assert [node.text for node in kinds(tree, "paragraph")] == [
        "|PyPI| |version|",
        "|PyPI| and text",
    ]
    (definition,) = kinds(tree, "directive")
    assert definition.text == ".. |version| replace:: 1.2"


@pytest.mark.parametrize(
    ("source", "kept"),
    [
        # Found by hypothesis: an overline without its underline is rejected by docutils
        # and its lines belong to no node; they were excluded with the transition above.
        ("----------\n\n----------\n>>> print(1)\n1\n", "----------\n>>> print(1)\n1"),
        ("a\n\n.. image:: x.png\nstray text\n", "stray text"),
    ],
)
def test_an_excluded_construct_never_takes_rejected_text_with_it(source: str, kept: str) -> None:
    tree = normalize(source)
    assert kept in [node.text for node in kinds(tree, "paragraph")]
    assert all(kept not in e.span.slice(source) for e in tree.exclusions)


def test_parses_in_several_threads_give_the_trees_of_one_thread() -> None:
    # State machines are pooled per thread and reused across documents: a parse must
    # see nothing of another document's parse, in its thread or another.
    sources = [_list_heavy(variant) + BADGES for variant in ("a", "b", "c")]
    normalizer = RstNormalizer()
    expected = [normalize(source, normalizer) for source in sources]

    def run(offset: int) -> list[NormalizedDocument]:
        return [normalize(sources[(offset + i) % 3], normalizer) for i in range(9)]

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, range(4)))
    for offset, trees in enumerate(results):
        assert trees == [expected[(offset + i) % 3] for i in range(9)]


def test_rubrics_and_titles_where_no_section_may_stand_are_heading_leaves() -> None:
    """``.. rubric::`` and a title inside a directive's body (autodoc's automodule, as
    celery's reference pages write it) head what follows without opening a section."""
    source = (
        "Title\n=====\n\n.. automodule:: celery.app\n\n    Proxies\n    -------\n\n"
        "    .. autodata:: default_app\n\n    Functions\n    ---------\n\n"
        "    Some text.\n\n.. rubric:: Footnotes\n\n.. [1] A note.\n"
    )
    tree = normalize(source)
    headings = [
        (n.level, n.text, tree.node(n.parent_id or "").kind)
        for n in tree.nodes
        if n.kind == "heading"
    ]
    assert headings == [
        (1, "Title", "section"),
        (2, "Proxies", "directive"),
        (2, "Functions", "directive"),
        (2, "Footnotes", "section"),
    ]
    assert [n.text for n in tree.nodes if n.kind == "section"] == ["Title"]
    assert tree.diagnostics == ()  # docutils' "Unexpected section title." is handled
    # Titles inside a definition list's run still end it and open a section.
    listed = normalize("Title\n=====\n\nterm\n   definition\n\nNext\n----\n\nText.\n")
    assert [n.text for n in listed.nodes if n.kind == "section"] == ["Title", "Next"]
