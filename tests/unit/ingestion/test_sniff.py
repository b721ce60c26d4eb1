"""Sniffing decides a file's type from its bytes first; the name only picks a text format."""

from __future__ import annotations

import codecs
import struct
import zipfile
from pathlib import Path

import pytest

from fastrag.ingestion._sniff import MAX_CENTRAL_DIRECTORY, sniff
from tests._paths import CORPUS

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")


@pytest.mark.parametrize(
    ("name", "head", "expected", "detected_by"),
    [
        ("notes.md", b"# Title\n\ntext\n", "markdown", "extension"),
        ("notes.MARKDOWN", b"text", "markdown", "extension"),
        ("guide.rst", b"Title\n=====\n", "rst", "extension"),
        ("guide.rest", b"Title\n=====\n", "rst", "extension"),
        ("README", b"plain", "text", "extension"),
        ("a.txt", b"", "text", "extension"),
        # Sphinx's copies of its sources (``_sources/library/json.rst.txt``, MyST's .md.txt)
        ("json.rst.txt", b"Title\n=====\n", "rst", "extension"),
        ("install.md.txt", b"# Install\n", "markdown", "extension"),
        ("notes.v2.txt", b"plain", "text", "extension"),
        ("page.htm", b"<p>fragment</p>", "html", "extension"),
        ("report.pdf", b"<!DOCTYPE html><html><body>404</body></html>", "html", "content"),
        ("report.pdf", b"  \n<!-- saved -->\n<HTML lang=en>", "html", "content"),
        ("x.md", b'<?xml version="1.0"?>\n<html xmlns="x">', "html", "content"),
        ("x.md", codecs.BOM_UTF8 + b"<body>", "html", "content"),
        ("x.txt", codecs.BOM_UTF16_LE + "<html>".encode("utf-16-le"), "html", "content"),
        ("x.txt", codecs.BOM_UTF16_LE + "hello".encode("utf-16-le"), "text", "extension"),
        ("x.md", b"%PDF-1.7\n%\xe2\xe3", "pdf", "content"),
        # U+FFFD spelled in valid UTF-8 is text, not undecodable bytes.
        ("x.txt", "\ufffd\ufffd ok".encode(), "text", "extension"),
    ],
)
def test_content_then_extension(name: str, head: bytes, expected: str, detected_by: str) -> None:
    sniffed = sniff(head, name)
    assert (sniffed.source_type, sniffed.detected_by) == (expected, detected_by)


@pytest.mark.parametrize(
    ("name", "head", "fragment"),
    [
        ("garbage.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "NUL bytes"),
        ("garbage.md", bytes(range(128, 256)) * 4, "mostly undecodable"),
        ("garbage.md", b"\xef\xbf\xbd" + bytes(range(128, 256)) * 4, "mostly undecodable"),
        ("fake.pdf", b"just some text", "no pdf signature"),
        ("fake.docx", b"just some text", "no docx signature"),
        ("script.py", b"print('hi')\n", "no parser for extension '.py'"),
        ("archive.zip", b"PK\x03\x04rest", "could not be inspected"),
    ],
)
def test_unsupported_content_says_why(name: str, head: bytes, fragment: str) -> None:
    sniffed = sniff(head, name)
    assert sniffed.source_type is None
    assert fragment in sniffed.reason


@needs_corpus
@pytest.mark.parametrize(
    ("relative", "expected"),
    [
        ("pdf/multicolumn.pdf", "pdf"),
        ("office/word_sample.docx", "docx"),
        ("office/powerpoint_sample.pptx", "pptx"),
        ("office/xlsx_01.xlsx", "xlsx"),
        ("web/wiki_duck.html", "html"),
        ("web/wiki.md", "markdown"),
    ],
)
def test_real_files_are_recognised(relative: str, expected: str) -> None:
    path = CORPUS / relative
    with path.open("rb") as handle:
        head = handle.read(8192)
    assert sniff(head, path.name, path=path).source_type == expected


def _zip(path: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name in names:
            archive.writestr(name, "x")
    return path


def test_zip_without_office_parts_is_unsupported(tmp_path: Path) -> None:
    path = _zip(tmp_path / "data.docx", ["readme.txt", "data/rows.csv"])
    sniffed = sniff(path.read_bytes()[:8192], path.name, path=path)
    assert sniffed.source_type is None
    assert "not a Word, PowerPoint or Excel document" in sniffed.reason


def test_office_type_comes_from_entries_not_extension(tmp_path: Path) -> None:
    path = _zip(tmp_path / "named.docx", ["[Content_Types].xml", "xl/workbook.xml"])
    assert sniff(path.read_bytes()[:8192], path.name, path=path).source_type == "xlsx"


def test_damaged_zip_is_reported_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "broken.docx"
    path.write_bytes(b"PK\x03\x04" + b"\x01" * 100)
    sniffed = sniff(path.read_bytes(), path.name, path=path)
    assert sniffed.source_type is None
    assert "end-of-archive" in sniffed.reason


def test_huge_central_directory_is_not_read(tmp_path: Path) -> None:
    # An end-of-archive record declaring an entry list over the cap: never read further.
    declared = MAX_CENTRAL_DIRECTORY + 1
    eocd = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 1, 1, declared, 30, 0)
    path = tmp_path / "many.zip"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 26 + eocd)
    sniffed = sniff(path.read_bytes()[:8192], path.name, path=path)
    assert sniffed.source_type is None
    assert f"({declared} bytes) exceeds" in sniffed.reason
