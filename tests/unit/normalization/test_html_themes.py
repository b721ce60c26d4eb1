"""HtmlNormalizer on the page layouts of popular documentation themes.

Each fixture is a real theme's markup (MkDocs Material 9, Docusaurus 3, Sphinx's Read
the Docs theme, Alabaster and Furo), cut down to one short page: what must come out is
the page's own text, with its first chunk under its title.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fastrag.ingestion.steps.chunking.structure import StructureAwareChunker
from fastrag.models import Document
from tests.unit.normalization._html_helpers import excluded, normalize, texts

THEMES = Path(__file__).parent / "themes"


def page(name: str) -> str:
    return (THEMES / f"{name}.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "mkdocs_material",
            [
                "Getting started",
                "Material for MkDocs is a theme for MkDocs, a static site generator geared "
                "towards project documentation.",
                "Installation",
                "Tip",
                "Use a virtual environment.",
                "pip install mkdocs-material",
                "Latest",
                "1.x",
                "Install the latest version.",
                "Install the old version.",
                "Last update: May 1, 2023",
            ],
        ),
        (
            "docusaurus",
            [
                "Installation",
                "Docusaurus is essentially a set of npm packages.",
                "tip",
                "Use the Fast Track to understand Docusaurus in 5 minutes.",
                "Requirements",
                "- Node.js version 18.0 or above.",
                "npx create-docusaurus@latest my-website classic",
            ],
        ),
        (
            "sphinx_rtd",
            [
                "Installation",
                "To install Requests, simply run this simple command in your terminal of choice:",
                "$ python -m pip install requests",
                "Get the Source Code",
                "Requests is actively developed on GitHub, where the code is always available.",
                "Note",
                "Be careful with the tarball.",
            ],
        ),
        (
            "sphinx_alabaster",
            [
                "Quickstart",
                "Eager to get started? This page gives a good introduction in how to get "
                "started with Requests.",
                "Make a Request",
                "Making a request with Requests is very simple.",
                ">>> import requests",
            ],
        ),
        (
            "furo",
            [
                "Quickstart",
                "This page has moved. You should be redirected automatically to the getting "
                "started guide.",
                "Install a package",
                "$ python -m pip install SomePackage",
            ],
        ),
    ],
)
def test_a_themes_page_gives_its_own_text(name: str, expected: list[str]) -> None:
    assert texts(normalize(page(name))) == expected


@pytest.mark.parametrize(
    "name", ["mkdocs_material", "docusaurus", "sphinx_rtd", "sphinx_alabaster", "furo"]
)
def test_a_themes_page_is_one_chunk_under_its_title(name: str) -> None:
    source = page(name)
    chunker = StructureAwareChunker(cache=False)
    (chunk,) = chunker.split(Document(name, name, source, {"content_format": "html"}))
    content, metadata = chunk
    assert metadata["heading_path"] == (texts(normalize(source))[0],)
    assert content.startswith(metadata["heading_path"][0] + "\n\n")


def test_navigation_inside_main_is_boilerplate() -> None:
    # MkDocs Material lays its two sidebars (the site's pages, the page's headings) inside
    # <main>: they opened the page's first chunk, which then had no heading path.
    removed = excluded(normalize(page("mkdocs_material")), "boilerplate")
    assert any(run.startswith('<nav class="md-nav md-nav--primary"') for run in removed)
    assert any(run.startswith('<nav class="md-nav md-nav--secondary"') for run in removed)


def test_an_articles_footer_goes_a_quotations_stays() -> None:
    # Docusaurus: "Edit this page" and "Last updated on May 1, 2023" in the article.
    removed = excluded(normalize(page("docusaurus")), "boilerplate")
    assert any(run.startswith('<footer class="theme-doc-footer') for run in removed)
    source = (
        "<main><h1>Quotes</h1><blockquote><p>Simple is better.</p>"
        "<footer>— Tim Peters</footer></blockquote><footer>Edit this page</footer></main>"
    )
    assert texts(normalize(source)) == ["Quotes", "Simple is better.", "— Tim Peters"]


def test_docusaurus_hash_links_leave_headings_clean() -> None:
    # Its permalink's text is a zero-width space: "Requirements\u200b" was the title.
    tree = normalize(page("docusaurus"))
    headings = [node.text for node in tree.nodes if node.kind == "heading"]
    assert headings == ["Installation", "Requirements"]
    assert any(
        run.startswith('<a href="#requirements" class="hash-link"')
        for run in excluded(tree, "boilerplate")
    )


def test_the_labels_of_a_tabbed_set_are_paragraphs_other_labels_stay_inline() -> None:
    # PyMdown's tabbed sets (MkDocs Material) put their labels side by side with nothing
    # between them: "Latest1.x", "Python 3.10+Python 3.8+" on FastAPI's pages.
    labels = (
        '<div class="tabbed-labels"><label for="__tabbed_1_1">Latest</label>'
        '<label for="__tabbed_1_2">1.x</label></div>'
    )
    assert texts(normalize(f"<main>{labels}<p>Text.</p></main>")) == ["Latest", "1.x", "Text."]
    form = '<main><p>Name: <label for="n">First</label> <input id="n"></p></main>'
    assert texts(normalize(form)) == ["Name: First"]
