"""``render_html``: every chunk on the page, the text intact, nothing a document can inject."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest

from fastrag.inspection import CONTENT_SECURITY_POLICY, inspect_file, render_html
from tests._paths import REPO
from tests.unit.inspection._page import ALLOWED_TAGS, read_page
from tests.unit.inspection.conftest import HOSTILE_NAME, HOSTILE_PARTS

EXAMPLES = REPO / "examples" / "documents"
DOCUMENTS = (
    "wiki.md",
    "python-tutorial-classes.html",
    "kjv-ruth.txt",
    "python-tutorial-controlflow.rst",
)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_chunk_is_on_the_page_and_the_text_is_intact(name: str) -> None:
    inspection = inspect_file(EXAMPLES / name, max_tokens=200, overlap_tokens=30)
    page = read_page(render_html(inspection))
    ids = [record["chunk_id"] for record in inspection.records]
    assert len(ids) > 5
    assert page.card_ids == ids
    # Every chunk owns at least one coloured run that links to its card.
    assert page.run_chunks == set(range(len(ids)))
    # The document pane shows the parsed text exactly, character for character.
    assert page.document_text == inspection.content
    assert page.csp == CONTENT_SECURITY_POLICY


def test_overlap_is_marked_where_the_next_chunk_repeats_text() -> None:
    inspection = inspect_file(EXAMPLES / "kjv-ruth.txt", max_tokens=200, overlap_tokens=40)
    markup = render_html(inspection)
    repeated = {
        position
        for position, record in enumerate(inspection.records)
        if record["metadata"]["overlap_intervals"]
    }
    assert repeated
    shown = {
        int(value) for value in re.findall(r'class="s c\d ov"[^>]*data-overlap="(\d+)"', markup)
    }
    assert shown == repeated


def test_markers_sit_at_each_chunk_start() -> None:
    inspection = inspect_file(EXAMPLES / "wiki.md", max_tokens=200)
    markup = render_html(inspection)
    text = read_page(markup).document_text
    for position, record in enumerate(inspection.records):
        marker = f'<a class="mark" id="at-{position}" href="#chunk-{position}"'
        assert markup.count(marker) == 1
        # What follows the marker in the page is the chunk's first source text.
        after = markup.split(marker, 1)[1]
        first_run = re.match(r' data-n="\d+"></a><a class="s [^>]*>([^<]*)</a>', after)
        assert first_run is not None
        assert text[record["char_start"] :].startswith(unescape(first_run.group(1)))


def test_a_hostile_document_cannot_add_an_element_or_a_script(hostile_file: Path) -> None:
    inspection = inspect_file(hostile_file, max_tokens=80)
    markup = render_html(inspection)
    page = read_page(markup)
    assert {tag for tag, _ in page.tags} <= ALLOWED_TAGS
    assert not [tag for tag, _ in page.tags if tag in ("script", "img", "textarea", "iframe")]
    assert sum(tag == "style" for tag, _ in page.tags) == 1
    for _, attributes in page.tags:
        assert not [name for name in attributes if name.startswith("on")]
        for name in ("href", "src"):
            value = attributes.get(name)
            assert value is None or value.startswith("#"), value
    # The hostile text is all there — as text.
    assert page.document_text == inspection.content
    for part in HOSTILE_PARTS:
        assert part in page.document_text
    assert markup.count("<script") == 0 and "<img" not in markup
    assert markup.count("</style>") == 1
    # The file name is escaped in the title and heading.
    title = re.search(r"<title>(.*)</title>", markup)
    assert title is not None and "<" not in title.group(1)
    assert read_page(markup).tags[0][0] == "html"
    assert HOSTILE_NAME not in markup  # never raw; only escaped


def test_hostile_section_paths_are_escaped_in_attributes(hostile_file: Path) -> None:
    inspection = inspect_file(hostile_file, max_tokens=80)
    page = read_page(render_html(inspection))
    titles = [
        attributes["title"] for tag, attributes in page.tags if tag == "a" and "title" in attributes
    ]
    sections = {record["section"] for record in inspection.records}
    # Markdown headings drop inline HTML tags, but quotes, brackets and entities remain.
    assert any('">' in section for section in sections)
    assert any("<already-escaped> &" in section for section in sections)
    for section in sections:
        assert any(f"section: {section} |" in str(title) for title in titles)


def test_the_page_is_deterministic(hostile_file: Path, tmp_path: Path) -> None:
    first = render_html(inspect_file(hostile_file, max_tokens=80))
    second = render_html(inspect_file(hostile_file, max_tokens=80))
    assert first == second
    # The same bytes from another folder: no path or time is in the page.
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (moved / hostile_file.name).write_bytes(hostile_file.read_bytes())
    assert render_html(inspect_file(moved / hostile_file.name, max_tokens=80)) == first
    assert str(tmp_path) not in first


def test_a_carriage_return_survives_html_parsing(tmp_path: Path) -> None:
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"first line\r\nsecond line\r\n\r\nnext paragraph\r\n")
    inspection = inspect_file(path)
    assert "\r" in inspection.content
    markup = render_html(inspection)
    assert "\r" not in markup
    assert read_page(markup).document_text == inspection.content


def test_an_empty_document_renders_a_page_saying_so(tmp_path: Path) -> None:
    path = tmp_path / "empty.md"
    path.write_text("\n\n   \n", encoding="utf-8")
    inspection = inspect_file(path)
    assert inspection.records == ()
    markup = render_html(inspection)
    assert "No chunks" in markup
    assert read_page(markup).card_ids == []
