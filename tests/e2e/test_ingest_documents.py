"""``fastrag ingest`` on real PDF and office files: every file ends in the state its bytes
call for, with a reason naming it; pages, sections and the report come out of the run.

The expectations are read from the documents with independent tools (pypdfium2's own
page text, python-docx's heading paragraphs), not from fastrag's parsers.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests._paths import CORPUS
from tests.e2e._trees import ingest, manifest_rows, records

pypdfium2 = pytest.importorskip("pypdfium2")
docx = pytest.importorskip("docx")

PDFS = (
    "multicolumn.pdf",
    "acmart-sample-sigconf.pdf",
    "scanned_ocr_test.pdf",
    "encrypted_aes256_multicolumn.pdf",
    "malformed_invalid.pdf",
    "truncated_acmart-sample-sigconf.pdf",
)
OFFICE = ("word_sample.docx", "powerpoint_sample.pptx", "xlsx_05_table_with_title.xlsx")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("documents") / "in"
    root.mkdir()
    for name in PDFS:
        shutil.copyfile(CORPUS / "pdf" / name, root / name)
    for name in OFFICE:
        shutil.copyfile(CORPUS / "office" / name, root / name)
    (root / "empty.pdf").write_bytes(b"")
    return root


@pytest.fixture(scope="module")
def run(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("out")
    output = out / "chunks.jsonl"
    # A small budget, so that small sibling sections are not merged into their parent's
    # chunk and every heading shows up in some section path.
    status = ingest(
        tree,
        output,
        "--max-tokens", "100",
        "--report", str(out / "report.json"),
        "--quarantine", str(out / "q"),
    )  # fmt: skip
    return {
        "status": status,
        "records": records(output),
        "rows": manifest_rows(output),
        "report": json.loads((out / "report.json").read_text(encoding="utf-8")),
        "quarantine": out / "q",
    }


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]{4,}", text)


def test_every_file_ends_in_the_state_its_bytes_call_for(run: dict[str, Any]) -> None:
    rows = run["rows"]
    states = {path: row["state"] for path, row in rows.items()}
    assert states == {
        "multicolumn.pdf": "chunked",
        "acmart-sample-sigconf.pdf": "chunked",
        "scanned_ocr_test.pdf": "quarantined",
        "encrypted_aes256_multicolumn.pdf": "failed",
        "malformed_invalid.pdf": "failed",
        "truncated_acmart-sample-sigconf.pdf": "failed",
        "empty.pdf": "skipped",
        "word_sample.docx": "chunked",
        "powerpoint_sample.pptx": "chunked",
        "xlsx_05_table_with_title.xlsx": "chunked",
    }
    assert run["status"] == 3  # something failed or was quarantined
    for path, row in rows.items():
        if row["state"] != "chunked":
            assert path in row["reason"]
    assert "needs OCR" in rows["scanned_ocr_test.pdf"]["reason"]
    assert rows["scanned_ocr_test.pdf"]["error"] == "NeedsOcrError"
    assert rows["malformed_invalid.pdf"]["error"] == "ParsingError"
    assert "--pdf-password" in rows["encrypted_aes256_multicolumn.pdf"]["reason"]
    assert (run["quarantine"] / "scanned_ocr_test.pdf").is_file()


def test_pdf_chunks_carry_the_page_their_text_is_on(run: dict[str, Any]) -> None:
    document = pypdfium2.PdfDocument(str(CORPUS / "pdf" / "acmart-sample-sigconf.pdf"))
    try:
        page_words = [
            set(_words(document[index].get_textpage().get_text_range()))
            for index in range(len(document))
        ]
    finally:
        document.close()
    pdf_records = [r for r in run["records"] if r["source"] == "acmart-sample-sigconf.pdf"]
    assert len(pdf_records) > 5
    pages_seen = set()
    for record in pdf_records:
        page = record["page"]
        first, last = record["metadata"]["page_range"]
        assert 1 <= first == page <= last <= len(page_words)
        words = _words(record["text"])[:12]
        # the chunk's opening words are on its first page (hyphenation repair may join a
        # word pdfium splits, so a large majority, not all)
        on_page = sum(word in page_words[page - 1] for word in words)
        assert on_page >= 0.7 * len(words), (page, words)
        assert record["metadata"]["boxes"][0][0] == page
        pages_seen.add(page)
    assert pages_seen == set(range(1, len(page_words) + 1))


def test_office_sections_follow_their_headings(run: dict[str, Any]) -> None:
    word = docx.Document(str(CORPUS / "office" / "word_sample.docx"))
    headings = {
        p.text.strip()
        for p in word.paragraphs
        if p.style is not None and p.style.name.startswith(("Heading", "Title")) and p.text.strip()
    }
    sections = {
        title
        for r in run["records"]
        if r["source"] == "word_sample.docx"
        for title in r["metadata"]["heading_path"]
    }
    assert headings and headings <= sections
    slides = [r for r in run["records"] if r["source"] == "powerpoint_sample.pptx"]
    assert all(r["section"].startswith("Slide ") for r in slides)
    assert all(type(r["page"]) is int for r in slides)


def test_report_counts_pages_text_pages_and_ocr_needs(run: dict[str, Any]) -> None:
    pdf = run["report"]["by_type"]["pdf"]
    with_text = 0
    pages = 0
    for name in ("multicolumn.pdf", "acmart-sample-sigconf.pdf"):
        document = pypdfium2.PdfDocument(str(CORPUS / "pdf" / name))
        pages += len(document)
        with_text += sum(
            bool(document[i].get_textpage().get_text_range().strip()) for i in range(len(document))
        )
        document.close()
    assert (pdf["pages"], pdf["pages_with_text"]) == (pages, with_text)
    assert pdf["needs_ocr_documents"] == 1
    assert pdf["failed_documents"] == 3


def test_the_password_opens_the_encrypted_pdf(tree: Path, tmp_path: Path) -> None:
    single = tmp_path / "in"
    single.mkdir()
    shutil.copyfile(tree / "encrypted_aes256_multicolumn.pdf", single / "locked.pdf")
    output = tmp_path / "out.jsonl"
    assert ingest(single, output, "--pdf-password", "fastrag") == 0
    chunks = records(output)
    assert chunks and all(r["page"] in (1, 2, 3) for r in chunks)
    # the password is a secret: in no record value and in no manifest field
    assert '"fastrag"' not in output.read_text(encoding="utf-8")
    rows = manifest_rows(output)
    assert all(value != "fastrag" for row in rows.values() for value in row.values())
