"""Office packages as hostile input: zip bombs, corrupt and encrypted files, caps, wiring."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from fastrag.exceptions import (
    ConfigurationError,
    EncryptedDocumentError,
    MissingDependencyError,
    ParsingError,
)
from fastrag.ingestion.sources import discover
from fastrag.ingestion.steps.parsing.docx import DocxParser
from fastrag.ingestion.steps.parsing.pptx import PptxParser
from fastrag.ingestion.steps.parsing.xlsx import XlsxParser
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import EventRecorder, Pipeline, Policy
from tests._paths import SHARED

OFFICE = SHARED / "corpus" / "office"
PARSERS = (DocxParser, PptxParser, XlsxParser)
SAMPLES = {
    DocxParser: "word_sample.docx",
    PptxParser: "powerpoint_sample.pptx",
    XlsxParser: "xlsx_01.xlsx",
}

pytestmark = pytest.mark.skipif(not OFFICE.is_dir(), reason="shared corpus not present")


def raw(name: str) -> Document:
    return Document("raw", name, "", {})


@pytest.fixture(scope="module")
def zip_bomb(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A package whose one member inflates 200 MiB of zeros from about 200 KB."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.zip"
    block = bytes(1 << 20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("[Content_Types].xml", "<Types/>")
        with package.open("word/document.xml", "w") as stream:
            for _ in range(200):
                stream.write(block)
    return path.read_bytes()


@pytest.mark.parametrize("parser_class", PARSERS)
def test_a_zip_bomb_is_refused_before_any_library_inflates_it(
    zip_bomb: bytes, parser_class: type[DocxParser]
) -> None:
    data = zip_bomb
    assert len(data) < 1_000_000
    with pytest.raises(ParsingError, match=r"^bomb\.office: .*'word/document\.xml' inflates \d+x"):
        parser_class().parse(data, raw("bomb.office"))


def test_caps_on_total_size_and_member_count_name_their_option() -> None:
    data = (OFFICE / "word_sample.docx").read_bytes()
    with pytest.raises(ParsingError, match=r"word_sample\.docx: .*max_uncompressed_bytes"):
        DocxParser(max_uncompressed_bytes=10_000).parse(data, raw("word_sample.docx"))
    with pytest.raises(ParsingError, match=r"word_sample\.docx: .* 18 members.*max_members"):
        DocxParser(max_members=10).parse(data, raw("word_sample.docx"))
    for bad in ({"max_uncompressed_bytes": 0}, {"max_members": -1}, {"max_compression_ratio": 0.5}):
        with pytest.raises(ConfigurationError, match=next(iter(bad))):
            DocxParser(**bad)  # type: ignore[arg-type]
    assert DocxParser(max_compression_ratio=50).config()["max_compression_ratio"] == 50


@pytest.mark.parametrize("parser_class", PARSERS)
def test_truncated_and_junk_files_fail_naming_the_file(parser_class: type[DocxParser]) -> None:
    data = (OFFICE / SAMPLES[parser_class]).read_bytes()
    with pytest.raises(ParsingError, match=r"^cut\.office: .*corrupt or truncated ZIP"):
        parser_class().parse(data[: len(data) // 2], raw("cut.office"))
    with pytest.raises(ParsingError, match=r"^junk\.office: "):
        parser_class().parse(b"not a zip at all", raw("junk.office"))


@pytest.mark.parametrize("parser_class", PARSERS)
def test_a_package_of_another_office_format_fails_naming_the_file(
    parser_class: type[DocxParser],
) -> None:
    other = next(name for cls, name in SAMPLES.items() if cls is not parser_class)
    data = (OFFICE / other).read_bytes()
    with pytest.raises(ParsingError, match=r"^wrong\.office: is not a readable (DOCX|PPTX|XLSX)"):
        parser_class().parse(data, raw("wrong.office"))


def without_body(target: Path) -> bytes:
    """word_sample.docx minus its main part: still a Word package to discovery's eyes."""
    with (
        zipfile.ZipFile(OFFICE / "word_sample.docx") as source,
        zipfile.ZipFile(target, "w") as package,
    ):
        for info in source.infolist():
            if info.filename != "word/document.xml":
                package.writestr(info, source.read(info))
    return target.read_bytes()


def test_a_package_missing_a_part_fails_naming_the_file(tmp_path: Path) -> None:
    data = without_body(tmp_path / "partless.docx")
    with pytest.raises(ParsingError, match=r"^partless\.docx: is not a readable DOCX file"):
        DocxParser().parse(data, raw("partless.docx"))


def test_password_protected_and_legacy_files_are_named_for_what_they_are() -> None:
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    encrypted = ole + "EncryptedPackage".encode("utf-16-le") + bytes(64)
    with pytest.raises(EncryptedDocumentError, match=r"^secret\.docx: is a password-protected"):
        DocxParser().parse(encrypted, raw("secret.docx"))
    with pytest.raises(ParsingError, match=r"^old\.xlsx: is a legacy binary Office file"):
        XlsxParser().parse(ole, raw("old.xlsx"))


def test_a_missing_library_names_the_office_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pptx", None)  # what an uninstalled package looks like
    data = (OFFICE / "powerpoint_sample.pptx").read_bytes()
    with pytest.raises(MissingDependencyError, match=r"fastrag-ai\[office\]"):
        PptxParser().parse(data, raw("powerpoint_sample.pptx"))


def test_importing_the_parsers_loads_no_office_library() -> None:
    code = (
        "import sys\n"
        "import fastrag.ingestion.steps.parsing.docx, fastrag.ingestion.steps.parsing.pptx\n"
        "import fastrag.ingestion.steps.parsing.xlsx\n"
        "print(sorted(m for m in ('docx', 'pptx', 'openpyxl') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_parsers_run_in_a_pipeline_with_the_agreed_metadata(tmp_path: Path) -> None:
    data = (OFFICE / "powerpoint_sample.pptx").read_bytes()
    (tmp_path / "deck.pptx").write_bytes(data)
    without_body(tmp_path / "broken.docx")
    found = discover(tmp_path, parsable_types={"docx", "pptx"})
    sources = {source.relative_path: source for source in found}
    assert sources["deck.pptx"].source_type == "pptx"
    recorder = EventRecorder()
    (deck,) = Pipeline(
        PptxParser()([sources["deck.pptx"].to_document()]), listeners=[recorder]
    ).run_sync()
    assert deck.metadata["source"] == "deck.pptx"
    assert deck.metadata["source_type"] == "pptx"
    assert deck.metadata["content_format"] == ContentFormat.MARKDOWN
    assert deck.metadata["parser_version"] == "PptxParser:1"
    assert deck.metadata["sha256"] == hashlib.sha256(data).hexdigest()
    assert deck.metadata["slides"] == 3
    assert "path" not in deck.metadata
    broken = Pipeline(
        DocxParser()([sources["broken.docx"].to_document()]),
        policy=Policy(on_failure="skip"),
        listeners=[recorder],
    ).run_sync()
    assert broken == []
    (failure,) = recorder.failures
    assert failure.error_type == "ParsingError"
    assert "broken.docx: is not a readable DOCX file" in failure.message
