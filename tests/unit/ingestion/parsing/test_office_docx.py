"""``DocxParser`` on the real Word files of the shared corpus: structure reaches the chunks."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from fastrag.exceptions import ParsingError
from fastrag.ingestion.steps.chunking import StructureAwareChunker
from fastrag.ingestion.steps.parsing.docx import DocxParser
from fastrag.models import ContentFormat, Document
from fastrag.normalization import NormalizerRegistry
from tests._paths import SHARED

OFFICE = SHARED / "corpus" / "office"

pytestmark = pytest.mark.skipif(not OFFICE.is_dir(), reason="shared corpus not present")


def parse(name: str, data: bytes | None = None) -> Document:
    parser = DocxParser()
    raw = Document("raw", name, "", {})
    payload = (OFFICE / name).read_bytes() if data is None else data
    return parser.build_document(raw, parser.parse(payload, raw))


def heading_lines(document: Document) -> list[str]:
    return [line for line in document.content.splitlines() if line.startswith("#")]


def section_paths(document: Document) -> set[tuple[str, ...]]:
    """Heading paths of chunks packed small, so most sections get chunks of their own."""
    chunker = StructureAwareChunker(
        target_tokens=40, max_tokens=80, min_preferred_tokens=1, merge_small_sections=False
    )
    return {tuple(meta["heading_path"]) for _, meta in chunker.split(document)}


def tree_section_paths(document: Document) -> set[tuple[str, ...]]:
    """Every section's path in the normalized tree the chunker packs (small ones too)."""
    tree = NormalizerRegistry().normalize(document)
    return {
        (*(a.text for a in tree.ancestors(node) if a.kind == "section"), node.text)
        for node in tree.nodes
        if node.kind == "section"
    }


def test_word_sample_headings_lists_table_and_picture() -> None:
    document = parse("word_sample.docx")
    assert document.metadata["content_format"] == ContentFormat.MARKDOWN
    assert document.metadata["parser_version"] == "DocxParser:3"
    assert heading_lines(document) == ["# Swimming in the lake", "## Let’s swim!", "### Let’s eat"]
    content = document.content
    assert "- You can relax and look around\n- Paddle about\n- Enjoy summer warmth" in content
    # numId 0 switches numbering off: a "List Bullet" paragraph that is not an item.
    assert "\n\nAlso, don’t forget:\n\n1. Wear sunglasses\n2. Don’t forget" in content
    assert "> I like to eat leaves" in content
    table = "|  | Food | Calories per portion |\n|---|---|---|\n| Leaves | Ash, Elm, Maple | 50 |"
    assert table in content
    assert document.metadata["parse_diagnostics"] == (
        "pictures: 1 not rendered (no text extracted)",
    )
    assert ("Swimming in the lake", "Let’s swim!", "Let’s eat") in section_paths(document)


def test_heading_levels_from_title_down_to_heading_3() -> None:
    document = parse("unit_test_headers.docx")
    assert heading_lines(document) == [
        "# Test Document",
        "## Section 1",
        "### Section 1.1",
        "### Section 1.2",
        "#### Section 1.2.3",
        "## Section 2",
        "#### Section 2.1.1",
        "### Section 2.1",
    ]
    paths = tree_section_paths(document)
    assert ("Test Document", "Section 1", "Section 1.2", "Section 1.2.3") in paths
    assert ("Test Document", "Section 2", "Section 2.1") in paths
    assert ("Test Document", "Section 1", "Section 1.1") in section_paths(document)


def test_officer_headers_and_footers_are_excluded_not_content() -> None:
    document = parse("officer-example.docx")
    content = document.content
    assert "bookmark" not in content  # header "a bookmark is here", footer "another ..."
    assert [dict(entry) for entry in document.metadata["excluded"]] == [
        {"part": "header", "characters": 18},
        {"part": "footer", "characters": 24},
    ]
    # Localized style ids (Titre1, Paragraphedeliste) still read as headings and lists.
    assert heading_lines(document) == [
        "## Title 1",
        "## Title 2",
        "### Sub title 1",
        "### Sub title 2",
    ]
    assert "1. Quisque tristique\n2. Augue nisi, et convallis\n3. Sapien mollis nec." in content
    assert "- Quisque tristique\n- Augue nisi" in content
    assert "| Petals | Internode | Sepal | Bract |\n|---|---|---|---|" in content
    assert content.count("| Merged cell |") == 4  # a vertical merge, repeated
    assert ("Title 2", "Sub title 2") in section_paths(document)


def test_word_tables_merged_cells_are_repeated_and_rows_aligned() -> None:
    content = parse("word_tables.docx").content
    assert content.count("\n|---") == 7
    assert "| Cell 1.0 | Merged Cell 1.1 1.2 | Merged Cell 1.1 1.2 | Cell 1.3 |" in content
    assert "| Cell 1.0 | Merged Cell 1.1 2.1 | Cell 1.2 |\n| Cell 2.0 | Merged Cell 1.1 2.1 |" in (
        content
    )
    # A row starting late (w:gridBefore) keeps its cell under the right header.
    assert "| Header 0.0 | Header 0.1 |\n|---|---|\n|  | Cell 1.1 |" in content
    # A vertical span over that late row repeats into it.
    assert "| Merged Cell 0.2 1.2 |\n|---|---|---|\n|  |  | Merged Cell 0.2 1.2 |" in content


def test_carroll_chapter_set_in_bold_is_its_heading() -> None:
    document = parse("carroll-lookingglass.docx")
    blocks = document.content.rstrip("\n").split("\n\n")
    assert len(blocks) == 79  # 80 paragraphs, one of them empty
    assert blocks[:2] == ["THROUGH THE LOOKING-GLASS", "By Lewis Carroll"]
    # No heading styles: the chapter title is a Normal paragraph in bold at 12 pt, the
    # poem's title (and its mirror image) bold at the body's 9 pt, so one level down.
    assert heading_lines(document) == [
        "## CHAPTER I. Looking-Glass house",
        "### YKCOWREBBAJ",
        "### JABBERWOCKY",
    ]
    # The poem's indented lines are prose, not indented code blocks.
    assert "### JABBERWOCKY" in blocks
    assert not any(line.startswith(" ") for line in document.content.splitlines())
    paths = section_paths(document)
    assert ("CHAPTER I. Looking-Glass house", "JABBERWOCKY") in paths


def _bold_lines_docx(*, styled_heading: str = "") -> bytes:
    """Sections marked only by bold lines, and bold that is not a heading; a Heading 1
    paragraph ``"first"`` in the document or ``"later"``, after its first paragraph."""
    import docx
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls
    from docx.shared import Pt

    document = docx.Document()
    if styled_heading == "first":
        document.add_heading("Styled", level=1)
    elif styled_heading == "later":
        document.add_paragraph("Opening words.")
        document.add_heading("Styled", level=1)

    def bold(text: str, size: float | None = None, style: str | None = None) -> None:
        run = document.add_paragraph(style=style).add_run(text)
        run.bold = True
        if size is not None:
            run.font.size = Pt(size)

    bold("Annual report", 16)
    document.add_paragraph("The year in one paragraph.")
    bold("Revenue", 14)
    document.add_paragraph("Revenue grew.")
    bold("Costs", 14)
    document.add_table(rows=1, cols=1).cell(0, 0).text = "rent"
    bold("Note:")  # a lead-in, not a title
    document.add_paragraph("Figures are unaudited.")
    bold("A bold sentence that runs on for more words than any heading would have")
    document.add_paragraph("Plain text after it.")
    bold("Jane Doe")  # an address block: bold lines together are emphasis
    bold("London")
    document.add_paragraph("Dear reader.")
    bold("Figure 1 the duck", style="Caption")
    document.add_paragraph("Caption and text.")
    strong = document.add_paragraph()
    strong.add_run("Outlook").style = document.styles["Strong"]  # bold by character style
    document.add_paragraph("Next year.")
    undone = document.add_paragraph(style="Intense Quote")  # not a body paragraph
    undone.add_run("Quoted")
    document.add_paragraph("After the quote.")
    off = document.add_paragraph()
    off.add_run("Mixed ").bold = True
    off.add_run("weights")._r.get_or_add_rPr().append(parse_xml(f"<w:b {nsdecls('w')} w:val='0'/>"))
    document.add_paragraph("Last words.")
    stream = io.BytesIO()
    document.save(stream)
    return stream.getvalue()


def test_bold_lines_are_headings_in_a_document_without_heading_styles() -> None:
    document = parse("bold.docx", _bold_lines_docx())
    # Levels follow the font size: 16 pt above 14 pt; the Strong run's size is the default.
    assert heading_lines(document) == [
        "## Annual report",
        "### Revenue",
        "### Costs",
        "#### Outlook",
    ]
    content = document.content
    for text in ("Note:", "Jane Doe\n\nLondon", "Figure 1 the duck", "Mixed weights"):
        assert f"\n\n{text}\n\n" in content
    assert ("Annual report",) in section_paths(document)
    assert ("Annual report", "Costs") in tree_section_paths(document)


def test_bold_lines_stay_text_where_the_author_used_heading_styles() -> None:
    document = parse("styled.docx", _bold_lines_docx(styled_heading="later"))
    assert heading_lines(document) == ["## Styled"]
    assert "\n\nAnnual report\n\nThe year in one paragraph." in document.content


def test_bold_lines_head_sections_under_a_title_typed_in_heading_1() -> None:
    document = parse("titled.docx", _bold_lines_docx(styled_heading="first"))
    assert heading_lines(document) == [
        "## Styled",
        "### Annual report",
        "#### Revenue",
        "#### Costs",
        "##### Outlook",
    ]
    assert ("Styled", "Annual report", "Revenue") in tree_section_paths(document)


def test_a_document_set_mostly_in_bold_has_no_bold_headings() -> None:
    """Each bold line here has a table after it and nothing bold beside it: only the
    share of bold paragraphs (3 of 4) keeps them text."""
    import docx

    word = docx.Document()
    for text in ("Intro", "Body", "End"):
        word.add_paragraph().add_run(text).bold = True
        word.add_table(rows=1, cols=1).cell(0, 0).text = f"{text} cell"
    word.add_paragraph("One plain paragraph.")
    stream = io.BytesIO()
    word.save(stream)
    assert heading_lines(parse("all-bold.docx", stream.getvalue())) == []


def test_previsat_manual_toc_excluded_code_fenced_and_structure_kept() -> None:
    document = parse("PreviSat_en.docx")
    content = document.content
    headings = heading_lines(document)
    assert len(headings) == 32  # 33 heading paragraphs, one of them empty
    assert headings[:3] == ["## Overview", "## Graphical interface", "### World map"]
    assert content.count("\n|---") == 9
    assert "Overview\t3" not in content  # the table of contents
    excluded = {entry["part"]: entry["characters"] for entry in document.metadata["excluded"]}
    assert excluded["toc"] == 809
    assert "```\nPreviSat 3.5 / Astropedia (c) 2005-2015\n\nLocation" in content
    assert document.metadata["parse_diagnostics"] == (
        "pictures: 34 not rendered (no text extracted)",
        "equations: 5 not rendered (no text extracted)",
        "text boxes: 1 not rendered (no text extracted)",
    )
    assert ("Graphical interface", "World map") in section_paths(document)


@pytest.mark.parametrize("name", sorted(p.name for p in OFFICE.glob("*.docx")))
def test_every_docx_parses_deterministically(name: str) -> None:
    first, second = parse(name), parse(name)
    assert first == second
    assert first.content.endswith("\n") and first.content.strip()


def _built_docx(tmp_path: Path) -> bytes:
    """A document whose text looks like Markdown syntax, built with python-docx."""
    import docx
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    document = docx.Document()
    document.add_heading("Real heading", level=1)
    for text in ("# not a heading", "1. not a list", "- not a bullet", "    not code"):
        document.add_paragraph(text)
    document.add_paragraph("a | b\n---|---")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "pipe | inside"
    table.cell(0, 1).text = "two\nlines"
    table.cell(1, 0).text = "x"
    paragraph = document.add_paragraph("Kept ")
    paragraph._p.append(  # a hyperlink, a tracked insertion and a tracked deletion
        parse_xml(f"<w:hyperlink {nsdecls('w')}><w:r><w:t>linked</w:t></w:r></w:hyperlink>")
    )
    paragraph._p.append(parse_xml(f"<w:ins {nsdecls('w')}><w:r><w:t> added</w:t></w:r></w:ins>"))
    paragraph._p.append(
        parse_xml(f"<w:del {nsdecls('w')}><w:r><w:delText> gone</w:delText></w:r></w:del>")
    )
    document.add_paragraph("outer", style="List Bullet")
    nested = document.add_paragraph("inner", style="List Bullet")
    nested._p.get_or_add_pPr().append(
        parse_xml(f"<w:numPr {nsdecls('w')}><w:ilvl w:val='1'/></w:numPr>")
    )
    document.sections[0].header.paragraphs[0].text = "Running header"
    stream = io.BytesIO()
    document.save(stream)
    (tmp_path / "built.docx").write_bytes(stream.getvalue())
    return stream.getvalue()


def test_text_that_looks_like_markdown_stays_text(tmp_path: Path) -> None:
    document = parse("built.docx", _built_docx(tmp_path))
    content = document.content
    assert heading_lines(document) == ["## Real heading"]
    assert "\\# not a heading\n\n1\\. not a list\n\n\\- not a bullet\n\nnot code" in content
    assert "a \\| b\n---\\|---" in content  # two lines cannot become a table
    assert "| pipe \\| inside | two lines |\n|---|---|\n| x |  |" in content
    assert "Kept linked added\n\n- outer\n  - inner\n" in content
    assert "Running header" not in content
    assert [dict(entry) for entry in document.metadata["excluded"]] == [
        {"part": "header", "characters": 14}
    ]
    assert section_paths(document) == {("Real heading",)}


def test_a_hostile_grid_span_is_refused_not_expanded() -> None:
    import docx
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    document = docx.Document()
    table = document.add_table(rows=1, cols=1)
    table.cell(0, 0)._tc.get_or_add_tcPr().append(
        parse_xml(f"<w:gridSpan {nsdecls('w')} w:val='2000000000'/>")
    )
    stream = io.BytesIO()
    document.save(stream)
    with pytest.raises(ParsingError, match=r"^wide\.docx: a table row spans 1001 grid columns"):
        parse("wide.docx", stream.getvalue())
