"""Text fidelity of PdfParser on real PDFs: code examples, literal characters, hyphens, URLs.

Each test pins an exact piece of a shared-corpus PDF as the default parser renders it,
so a regression in font detection, escaping or line joining shows up as a diff.
"""

from __future__ import annotations

import ctypes
import io
import re

import pypdfium2
import pypdfium2.raw as pdfium_c
import pytest

from fastrag.ingestion.steps.parsing._pdf_analyze import analyze
from fastrag.ingestion.steps.parsing._pdf_extract import (
    BOLD_NAME,
    bold_by_name,
    extract,
    is_mono_font,
)
from fastrag.ingestion.steps.parsing._pdf_layout import BlockKind, Box, Span
from fastrag.ingestion.steps.parsing._pdf_lines import region_lines
from tests.unit.ingestion.parsing._pdf_helpers import PDF, parsed

_FENCE = re.compile(r"^```\n(.*?)\n```$", re.M | re.S)


def code_lines(name: str) -> list[str]:
    """Every line inside a fenced code block of the rendered ``name``."""
    return [line for block in _FENCE.findall(parsed(name).content) for line in block.split("\n")]


@pytest.mark.parametrize(
    ("font", "mono"),
    [
        ("CMTT10", True),
        ("CMSLTT10", True),  # Texinfo's @var inside @example
        ("CMITT10", True),
        ("CMTEX10", True),
        ("ABCDEF+CMTT9", True),  # a subset tag before the name
        ("QWERTY+LMMonoSlant10-Regular", True),
        ("SFTT1000", True),
        ("Courier-Bold", True),
        ("DejaVuSansMono", True),
        ("ABCDEF+NimbusMonL-Regu", True),  # shared-mime-info's specification (DocBook)
        ("NimbusMonL-BoldObli", True),
        ("Monaco", True),
        ("NimbusSanL-Regu", False),
        ("NimbusRomNo9L-Regu", False),
        ("CMR10", False),
        ("CMSL10", False),
        ("CMMI9", False),
        ("ABCDEF+Times-Roman", False),
        ("ArialUnicodeMS", False),
    ],
)
def test_monospaced_fonts_are_known_by_name(font: str, mono: bool) -> None:
    assert is_mono_font(font) is mono


@pytest.mark.parametrize(
    ("font", "bold"),
    [
        ("Helvetica-Bold", True),
        ("ABCDEF+CMBX12", True),
        ("Arial,Bold", True),
        ("Times-B", True),
        # Elsevier's Advent faces: a pdf-parse test article's section headings ("1.
        # Introduction") are set in the ".B" face at body size, without any bold flag.
        ("AdvOTb83ee1dd.B", True),
        ("AdvOTb83ee1dd.BI", True),
        ("AdvOTb92eb7df.I", False),
        ("AdvOT863180fb", False),
        ("NimbusSanL-Regu", False),
        ("CMR10", False),
    ],
)
def test_bold_fonts_are_known_by_name(font: str, bold: bool) -> None:
    assert (BOLD_NAME.search(font) is not None) is bold


@pytest.mark.parametrize(
    ("font", "bold"),
    [
        ("Times-Bold", True),
        ("ABCDEF+Times-Roman", False),
        ("NimbusRomNo9L-Regu", False),  # URW's abbreviations (bzip2's manual via ps2pdf)
        ("NimbusRomNo9L-ReguItal", False),
        ("URWPalladioL-Roma", False),
        ("NimbusRomNo9L-Medi", True),
        ("NimbusSanL-Bold", True),
        ("NimbusSans-Regular", False),
        ("SourceSansPro-Light", False),
        ("F1", None),  # says nothing: the font's flags and weight decide
        ("AdvOT863180fb", None),
    ],
)
def test_bold_by_name_tells_bold_regular_and_unknown_apart(font: str, bold: bool | None) -> None:
    assert bold_by_name(font) is bold


def type1_pdf(*rows: tuple[str, float, str]) -> bytes:
    """A page of rows ``(base font, y, text)`` at 10 pt, each font with the descriptor
    ghostscript writes for Times (``StemV`` 139 regular, 146 bold), from which pdfium
    derives weights of 695 and 724: both over the usual bold threshold of 600."""
    stems = {"Times-Roman": 139, "Times-Bold": 146}
    objects: list[str] = []
    fonts = {}
    for index, (base, stem) in enumerate(stems.items(), 1):
        objects.append(
            f"<</Type/FontDescriptor/FontName/{base}/Flags 34/FontBBox[-168 -218 1000 898]"
            f"/ItalicAngle 0/Ascent 683/Descent -217/CapHeight 662/StemV {stem}>>"
        )
        widths = " ".join(["500"] * 95)
        objects.append(
            f"<</Type/Font/Subtype/Type1/BaseFont/{base}/FirstChar 32/LastChar 126"
            f"/Widths[{widths}]/FontDescriptor {len(objects)} 0 R/Encoding/WinAnsiEncoding>>"
        )
        fonts[base] = (f"F{index}", len(objects))
    content = "BT\n" + "".join(
        f"/{fonts[base][0]} 10 Tf 1 0 0 1 72 {y} Tm ({text}) Tj\n" for base, y, text in rows
    )
    content += "ET\n"
    objects.append(f"<</Length {len(content)}>>\nstream\n{content}endstream")
    resources = " ".join(f"/{name} {number} 0 R" for name, number in fonts.values())
    page = len(objects) + 1
    objects.append(
        f"<</Type/Page/Parent {page + 1} 0 R/MediaBox[0 0 612 792]"
        f"/Contents {page - 1} 0 R/Resources<</Font<<{resources}>>>>>>"
    )
    objects.append(f"<</Type/Pages/Kids[{page} 0 R]/Count 1>>")
    objects.append(f"<</Type/Catalog/Pages {page + 1} 0 R>>")
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += (
        f"trailer\n<</Size {len(objects) + 1}/Root {len(objects)} 0 R>>\nstartxref\n{xref}\n%%EOF\n"
    ).encode()
    return out


def test_a_face_named_regular_is_not_bold_whatever_weight_pdfium_derives() -> None:
    # groff's man pages through ps2pdf: every row read as bold, so each option or
    # variable name set in Times-Bold at body size was not told from its description.
    data = type1_pdf(
        ("Times-Bold", 700, "DESCRIPTION"),
        ("Times-Roman", 686, "Bash is an sh-compatible command language interpreter."),
    )
    extraction = extract(data, name="man.pdf", password=None, max_pages=10, max_characters=10_000)
    spans = extraction.pages[0].spans
    assert [(span.text, span.bold) for span in spans] == [
        ("DESCRIPTION", True),
        ("Bash is an sh-compatible command language interpreter.", False),
    ]


def one_page_pdf(*runs: tuple[str, float, float, float, str]) -> bytes:
    """A page of text runs ``(standard font, size, x, y, text)``, written by pdfium."""
    document = pypdfium2.PdfDocument.new()
    try:
        page = document.new_page(400, 300)
        for font, size, x, y, text in runs:
            run = pdfium_c.FPDFPageObj_NewTextObj(document.raw, font.encode(), ctypes.c_float(size))
            wide = ctypes.create_string_buffer((text + "\0").encode("utf-16-le"))
            pdfium_c.FPDFText_SetText(run, ctypes.cast(wide, ctypes.POINTER(pdfium_c.FPDF_WCHAR)))
            pdfium_c.FPDFPageObj_Transform(run, 1, 0, 0, 1, x, y)
            pdfium_c.FPDFPage_InsertObject(page.raw, run)
        pdfium_c.FPDFPage_GenerateContent(page.raw)
        buffer = io.BytesIO()
        document.save(buffer)
        return buffer.getvalue()
    finally:
        document.close()


def test_math_symbols_neither_make_a_row_regular_nor_make_code_prose() -> None:
    data = one_page_pdf(
        ("Helvetica-Bold", 12, 40, 250, "Computing powers of "),
        ("Symbol", 12, 161, 250, "\u03c7"),  # a heading ending in a math variable
        ("Courier", 10, 40, 220, "${parameter:"),
        ("Symbol", 10, 112, 220, "\u2212"),  # TeX's minus inside typewriter text
        ("Courier", 10, 117.5, 220, "word}"),
        ("Courier", 10, 40, 200, "SIGTTOU, SIGTSTP"),  # inline code ending a prose row
        ("Helvetica", 10, 136, 200, " and others."),
    )
    spans = (
        extract(data, name="g.pdf", password=None, max_pages=1, max_characters=1000).pages[0].spans
    )
    assert [(span.text, span.bold, span.mono) for span in spans] == [
        ("Computing powers of \u03c7", True, False),
        ("${parameter:\u2212word}", False, True),
        ("SIGTTOU, SIGTSTP and others.", False, False),
    ]


def test_texinfo_examples_with_slanted_typewriter_placeholders_are_one_code_block() -> None:
    # bashref sets these examples in CMTT10 with CMSLTT10 placeholders, and pdfium sets
    # no FixedPitch flag for either font.
    content = parsed("bashref.pdf").content
    assert (
        "```\nif test-commands; then\n  consequent-commands;\n[elif more-test-commands; then\n"
        "  more-consequents;]\n[else alternate-consequents;]\nfi\n```"
    ) in content
    assert "```\nuntil test-commands; do consequent-commands; done\n```" in content
    assert "```\nwhile test-commands; do consequent-commands; done\n```" in content


def test_a_monospaced_term_stays_with_its_indented_definition() -> None:
    content = parsed("bashref.pdf").content
    assert (
        "\n\n${parameter:−word} If parameter is unset or null, the expansion of word is "
        "substituted. Otherwise, the value of parameter is substituted.\n\n"
    ) in content
    assert "\n\nforward-char (C-f) Move forward a character.\n\n" in content
    # the example under the term is code of its own; the next term starts a new block
    assert "```\n$ v=123\n$ echo ${v-unset}\n123\n```\n\n${parameter:=word} If" in content


def test_prose_rows_with_inline_code_are_not_code() -> None:
    # Rows such as "SIGTTOU, and SIGTSTP." or "ignoreboth." are mostly typewriter but end
    # in the text font: prose, however the characters are sampled.
    lines = code_lines("bashref.pdf")
    assert not [line for line in lines if line.endswith(("SIGTSTP.", "ignoreboth.", "REPLY."))]
    # 626 with the index's "do-lowercase-version (M-A," row; blank lines inside a code
    # block are not rows
    assert len([line for line in lines if line]) == 625


def test_paragraph_text_is_literal_not_markdown_escaped() -> None:
    content = parsed("bashref.pdf").content
    assert "the backslash quoted (e.g., ‘\\\\\\.’), which will not match" in content
    assert "the expansions of ${!prefix*} and ${!name[@]} described below" in content
    assert "Once installed using complete, _comp_cd will be called" in content
    # None left: the only two were the index entries for the ‘*’ special parameter,
    # and the index is left out.
    assert content.count("\\*") == 0


def test_a_compounds_line_end_hyphen_is_kept_when_the_document_votes_for_it() -> None:
    content = parsed("federal-register-2020-17221.pdf").content
    assert "FAAapproved" not in content and "nonnormal" not in content
    assert content.count("FAA-approved") == 11
    assert content.count("non-normal") == 9
    # inside an e-mail address the hyphen is never a soft one
    assert "email: Techsupport@pilatus-aircraft.com; internet:" in content
    assert "“camera-ready” copy" in parsed("acmart-sample-sigconf.pdf").content
    assert "shell-backward-word" in parsed("bashref.pdf").content


def test_a_capitalized_word_after_a_line_end_hyphen_keeps_it() -> None:
    content = parsed("GeoTopo-komprimiert.pdf").content
    assert "in A5 (Schwarz-Weiß, Ringbindung)" in content
    # ordinary hyphenation still joins: no other line-end hyphen survives in GeoTopo
    assert "Zusammenhangskomponenten" in content and "Widerspruchsbeweisen" in content


def test_a_url_cut_at_the_line_end_joins_without_a_space() -> None:
    federal = parsed("federal-register-2020-17221.pdf").content
    assert "https:// " not in federal
    assert federal.count("on the internet at https://www.regulations.gov by search") == 3
    acmart = parsed("acmart-sample-sigconf.pdf").content
    assert "https://www.acm.org/publications/class-2012 — is a" in acmart
    assert "https://doi.org/10.1145/1188913.1188915" in acmart
    assert "https://www.R-project.org/" in acmart
    bashref = parsed("bashref.pdf").content
    assert "(http://www.unix.org/version2/whatsnew/lfs20mar.html)" in bashref


def test_toc_entries_in_a_heading_style_and_a_two_size_cover_title() -> None:
    back_cover = "# Row and Column Access Control Support in IBM DB2 for i\n"
    assert back_cover in parsed("redp5110_sampled.pdf").content
    # Layout headings of bashref (outline hidden): its table of contents sets the
    # appendix entries bold, like headings, but they end in page numbers.
    name = "bashref.pdf"
    extraction = extract(
        (PDF / name).read_bytes(), name=name, password=None, max_pages=500, max_characters=10**7
    )
    headings = [
        block.text
        for page in analyze(extraction, use_outline=False).pages
        for block in page.blocks
        if block.kind is BlockKind.HEADING
    ]
    assert not [text for text in headings if re.search(r"\D \d{1,3}$", text)]
    assert "Appendix C GNU Free Documentation License" in headings


def test_a_superscript_stays_on_its_row() -> None:
    # GeoTopo's "S²" and "ℝⁿ": the raised "2" sat 3.9 pt above a 10.9 pt row, just past
    # the 0.35 em a row allows, and split its sentence into three paragraphs.
    content = parsed("GeoTopo-komprimiert.pdf").content
    assert "Die Kugeloberfläche S 2 lässt sich durch strecken, stauchen und umformen" in content
    assert "U ⊆ R n offen ⇔ für jedes x ∈ U gibt es r > 0," in content


def test_rows_join_a_raised_smaller_span_but_not_a_raised_same_size_one() -> None:
    def span(text: str, x0: float, baseline: float, size: float) -> Span:
        box = Box(x0, baseline - size, x0 + 5.0 * len(text), baseline)
        return Span(text, box, size, False, False, False, 0, baseline)

    script = [
        span("S", 90.0, 514.6, 10.9),
        span("2", 96.0, 510.7, 8.0),
        span("x", 102.0, 514.6, 10.9),
    ]
    assert [line.text for line in region_lines(script)] == ["S 2 x"]
    level = [span("S", 90.0, 514.6, 10.9), span("2", 96.0, 510.7, 10.9)]
    assert [line.text for line in region_lines(level)] == ["S", "2"]


def test_a_blank_line_inside_a_code_example_stays_inside_it() -> None:
    # Texinfo sets a blank line of an @example a hair over two line pitches below the row
    # above (26.3 pt, pitch 13.1 pt): it was read as the end of the block, and every
    # paragraph of the example became a code block of its own.
    content = parsed("bashref.pdf").content
    assert (
        "```\nTEXTDOMAIN=example\nTEXTDOMAINDIR=/usr/local/share/locale\n\n"
        "cp es.mo ${TEXTDOMAINDIR}/es/LC_MESSAGES/${TEXTDOMAIN}.mo\n"
    ) in content
    assert "    func2\n}\n\nfunc2()\n{\n" in content


def test_a_hanging_indent_goes_on_with_its_paragraph() -> None:
    """A line indented under one that starts at the margin and runs to the other
    mid-sentence is the hanging indent of a term, a proof or a reference: not a new
    paragraph's indented first line (each "Beweis:" was cut after its first line)."""
    content = parsed("GeoTopo-komprimiert.pdf").content
    assert (
        "\n\nBeweis: Sei U ⊆ Z offen ⇒ (g ◦ f) −1 (U) = f −1 (g −1 (U)). g −1 (U) ist offen in "
        "Y weil g stetig ist, f −1 (g −1 (U)) ist offen in X, weil f stetig ist.\n\n"
    ) in content
    # A centred block (a title page's affiliation) keeps its lines apart.
    assert "\n\nInstitute for Clarity in Documentation\n\nDublin, Ohio, USA\n\n" in (
        parsed("acmart-sample-sigconf.pdf").content
    )


def test_a_numbered_reference_list_is_a_list_of_its_entries() -> None:
    content = parsed("acmart-sample-sigconf.pdf").content
    assert (
        "\n- [1] Rafal Ablamowicz and Bertfried Fauser. 2007. CLIFFORD: a Maple 11 Package for "
        "Clifford Algebra Computations, version 11."
    ) in content
    assert (
        "\n- [2] Patricia S. Abril and Robert Plant. 2007. The patent holder’s dilemma: Buy, "
        "sell, or troll? Commun. ACM 50, 1 (Jan. 2007), 36–44. "
        "https://doi.org/10.1145/1188913.1188915\n"
    ) in content
    assert len(re.findall(r"(?m)^- \[\d+\] ", content)) == 38
