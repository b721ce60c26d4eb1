"""``PdfParser``'s key checks with both text backends: pypdfium2 and the optional PyMuPDF.

The PyMuPDF cases run where ``fastrag-ai[pymupdf]`` (AGPL-3.0) is installed and are
skipped, with the reason, where it is not.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from functools import cache

import pytest

from fastrag.exceptions import (
    EncryptedDocumentError,
    MissingDependencyError,
    NeedsOcrError,
    ParsingError,
)
from fastrag.ingestion.pages import page_of
from fastrag.ingestion.steps.parsing.pdf import PdfParser
from fastrag.models import Document
from tests.unit.ingestion.parsing._pdf_helpers import (
    PDF,
    check_page_maps,
    page_sizes,
    page_texts,
    parse_bytes,
    squash,
)

pytestmark = pytest.mark.skipif(not PDF.is_dir(), reason="shared corpus not present")

HAS_PYMUPDF = importlib.util.find_spec("pymupdf") is not None
BACKENDS = [
    "pypdfium2",
    pytest.param(
        "pymupdf",
        marks=pytest.mark.skipif(
            not HAS_PYMUPDF, reason="PyMuPDF not installed (optional fastrag-ai[pymupdf], AGPL-3.0)"
        ),
    ),
]
_UNESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


@cache
def parsed_with(backend: str, name: str) -> Document:
    return parse_bytes((PDF / name).read_bytes(), name, PdfParser(backend=backend))  # type: ignore[arg-type]


def failure(backend: str, name: str, password: str | None = None) -> ParsingError:
    parser = PdfParser(backend=backend, password=password)  # type: ignore[arg-type]
    with pytest.raises(ParsingError) as raised:
        parse_bytes((PDF / name).read_bytes(), name, parser)
    return raised.value


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "name", ["acmart-sample-sigconf.pdf", "federal-register-2020-17221.pdf", "redp5110_sampled.pdf"]
)
def test_pages_are_right(backend: str, name: str) -> None:
    document = parsed_with(backend, name)
    assert document.metadata["page_count"] == len(page_sizes(name))
    check_page_maps(document, page_sizes(name))
    texts = page_texts(name)
    layout = document.metadata["layout"]
    checked = 0
    for start, end, page, *_box in layout[:: max(1, len(layout) // 60)]:
        row = _UNESCAPE.sub(r"\1", document.content[start:end])
        if "…" in row or row.startswith("|"):
            continue
        if sum(not char.isascii() for char in row) > len(row) / 3:
            continue  # a font without a Unicode map: pdfium and MuPDF guess differently
        assert squash(row) in texts[page - 1] or all(
            squash(word) in texts[page - 1] for word in row.split()
        ), (backend, page, row)
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("backend", BACKENDS)
def test_headings_from_the_outline(backend: str) -> None:
    document = parsed_with(backend, "bashref.pdf")
    content, metadata = document.content, document.metadata
    assert metadata["heading_source"] == "outline"
    headings = [line for line in content.splitlines() if re.match(r"#{1,6} ", line)]
    assert headings[:4] == [
        "# 1 Introduction",
        "## 1.1 What is Bash?",
        "## 1.2 What is a shell?",
        "# 2 Definitions",
    ]
    assert "#### 3.1.2.1 Escape Character" in headings
    assert page_of(metadata["pages"], content.index("### 3.5.2 Tilde Expansion")) == 31
    assert "See Section 3.6 [Redirections], page 38" in content  # hyphenation repaired
    assert "Chapter 3: Basic Shell Features" not in content  # running header removed
    assert 190 <= metadata["removed_furniture"] <= 196


@pytest.mark.parametrize("backend", BACKENDS)
def test_headings_from_fonts_and_columns_in_order(backend: str) -> None:
    redp = parsed_with(backend, "redp5110_sampled.pdf")
    assert redp.metadata["heading_source"] == "layout"
    headings = [line for line in redp.content.splitlines() if line.startswith("#")]
    assert "# Chapter 1. Securing and protecting IBM DB2 data" in headings
    assert "## 1.1 Security fundamentals" in headings
    # The sample skips chapter 3's opening pages: 3.2.2 is not nested in chapter 1.
    assert "# 3.2.2 Built-in global variables" in headings
    assert redp.metadata["pages_without_text"] == [17]
    multicolumn = parsed_with(backend, "multicolumn.pdf").content
    assert "Vivamus viverra fermentum felis. Donec nonummy pellentesque ante." in multicolumn
    acm = parsed_with(backend, "acmart-sample-sigconf.pdf").content
    assert "# 2 TEMPLATE OVERVIEW" in acm and "## 2.1 Template Styles" in acm


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("name", "error", "reason"),
    [
        ("scanned_c02-22.pdf", NeedsOcrError, "no extractable text — needs OCR (1 image-only"),
        ("scanned_linn.pdf", NeedsOcrError, "no extractable text — needs OCR (1 image-only"),
        ("scanned_ocr_test.pdf", NeedsOcrError, "no extractable text — needs OCR (1 image-only"),
        ("encrypted_libreoffice-writer-password.pdf", EncryptedDocumentError, "it is encrypted"),
        ("encrypted_aes256_multicolumn.pdf", EncryptedDocumentError, "it is encrypted"),
        ("malformed_invalid.pdf", ParsingError, "truncated, damaged or not a PDF"),
        ("truncated_acmart-sample-sigconf.pdf", ParsingError, "truncated, damaged or not a PDF"),
    ],
)
def test_bad_files_raise_the_right_error(
    backend: str, name: str, error: type[ParsingError], reason: str
) -> None:
    raised = failure(backend, name)
    assert type(raised) is error
    assert str(raised).startswith(f"{name}: ") and reason in str(raised)


@pytest.mark.parametrize("backend", BACKENDS)
def test_passwords(backend: str) -> None:
    name = "encrypted_aes256_multicolumn.pdf"
    wrong = failure(backend, name, password="not-the-password-4711")
    assert isinstance(wrong, EncryptedDocumentError)
    assert "the password given is wrong" in str(wrong) and "4711" not in str(wrong)
    parser = PdfParser(backend=backend, password="fastrag")  # type: ignore[arg-type]
    document = parse_bytes((PDF / name).read_bytes(), name, parser)
    assert document.content.startswith("# Two-Column Document")


def test_truncated_file_pymupdf_opens_with_zero_pages_is_a_parsing_error() -> None:
    if not HAS_PYMUPDF:
        pytest.skip("PyMuPDF not installed (optional fastrag-ai[pymupdf], AGPL-3.0)")
    message = str(failure("pymupdf", "truncated_acmart-sample-sigconf.pdf"))
    assert message == (
        "truncated_acmart-sample-sigconf.pdf: PyMuPDF cannot read it (it opens with 0 pages); "
        "the file is truncated, damaged or not a PDF — re-export or repair it, or exclude it"
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_config_names_the_backend(backend: str) -> None:
    parser = PdfParser(backend=backend)  # type: ignore[arg-type]
    assert parser.config()["backend"] == backend
    if backend == "pymupdf":
        assert parser.config_hash != PdfParser().config_hash


def test_missing_pymupdf_names_the_extra_and_the_licence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pymupdf", None)  # as if not installed
    with pytest.raises(MissingDependencyError) as raised:
        PdfParser(backend="pymupdf")
    message = str(raised.value)
    assert "pip install 'fastrag-ai[pymupdf]'" in message and "AGPL-3.0" in message
    assert raised.value.extra == "pymupdf"


@pytest.mark.parametrize("backend", BACKENDS)
def test_rows_in_an_outline_heading_style_that_it_leaves_out_are_headings(backend: str) -> None:
    # Texinfo's unnumbered @subheading is set like a subsection but has no bookmark;
    # the authors on the title page share a heading style and stay text.
    content = parsed_with(backend, "bashref.pdf").content
    assert "### Invoked non-interactively" in content  # under 6.2 Bash Startup Files
    assert "## ADDENDUM: How to use this License for your documents" in content
    assert "# Chet Ramey" not in content and "## Chet Ramey" not in content
    # GeoTopo's bookmarks start at chapter 1; its preface sections are set as sections.
    lines = parsed_with(backend, "GeoTopo-komprimiert.pdf").content.splitlines()
    assert "## Was ist Topologie?" in lines
    assert "## Erforderliche Vorkenntnisse" in lines
    # An ACM paper's first page: after its bookmarked ABSTRACT, the unlisted sections are
    # headings; above it, the title block (title, authors) stays text.
    lines = parsed_with(backend, "acmart-sample-sigconf.pdf").content.splitlines()
    headings = [line for line in lines if line.startswith("#")]
    assert headings[:4] == ["# ABSTRACT", "# CCS CONCEPTS", "# KEYWORDS", "# 1 INTRODUCTION"]
