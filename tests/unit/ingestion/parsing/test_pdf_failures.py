"""``PdfParser`` failures: every bad PDF ends in the right error, naming the file and the fix."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from fastrag.exceptions import (
    ConfigurationError,
    EncryptedDocumentError,
    NeedsOcrError,
    ParsingError,
)
from fastrag.ingestion.sources import discover
from fastrag.ingestion.steps.parsing import _pdf_extract
from fastrag.ingestion.steps.parsing.pdf import PdfParser
from fastrag.pipeline import EventRecorder, Pipeline, Policy
from tests.unit.ingestion.parsing._pdf_helpers import PDF, parse_bytes

pytestmark = pytest.mark.skipif(not PDF.is_dir(), reason="shared corpus not present")


def failure(name: str, parser: PdfParser | None = None, data: bytes | None = None) -> ParsingError:
    payload = (PDF / name).read_bytes() if data is None else data
    with pytest.raises(ParsingError) as raised:
        parse_bytes(payload, name, parser)
    return raised.value


@pytest.mark.parametrize(
    ("name", "error", "reason"),
    [
        ("scanned_c02-22.pdf", NeedsOcrError, "no extractable text — needs OCR (1 image-only"),
        ("scanned_linn.pdf", NeedsOcrError, "no extractable text — needs OCR (1 image-only"),
        ("scanned_ocr_test.pdf", NeedsOcrError, "no extractable text — needs OCR (1 image-only"),
        ("encrypted_libreoffice-writer-password.pdf", EncryptedDocumentError, "it is encrypted"),
        ("encrypted_aes256_multicolumn.pdf", EncryptedDocumentError, "it is encrypted"),
        ("malformed_invalid.pdf", ParsingError, "pdfium error 3: bad format"),
        ("truncated_acmart-sample-sigconf.pdf", ParsingError, "pdfium error 3: bad format"),
    ],
)
def test_bad_files_raise_the_right_error_naming_the_file(
    name: str, error: type[ParsingError], reason: str
) -> None:
    raised = failure(name)
    assert type(raised) is error
    message = str(raised)
    assert message.startswith(f"{name}: ") and reason in message


def test_encrypted_message_names_both_ways_to_pass_the_password() -> None:
    message = str(failure("encrypted_aes256_multicolumn.pdf"))
    assert "PdfParser(password=...)" in message and "--pdf-password" in message


@pytest.mark.parametrize(
    ("name", "password"),
    [
        ("encrypted_libreoffice-writer-password.pdf", "openpassword"),
        ("encrypted_libreoffice-writer-password.pdf", "permissionpassword"),
        ("encrypted_aes256_multicolumn.pdf", "fastrag"),
    ],
)
def test_the_right_password_opens_the_file(name: str, password: str) -> None:
    document = parse_bytes((PDF / name).read_bytes(), name, PdfParser(password=password))
    assert document.content.startswith(("Lorem ipsum dolor sit amet", "# Two-Column Document"))
    assert password not in repr(dict(document.metadata))


def test_a_wrong_password_is_named_wrong_and_never_shown(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    secret = "not-the-password-4711"
    raised = failure("encrypted_aes256_multicolumn.pdf", PdfParser(password=secret))
    assert isinstance(raised, EncryptedDocumentError)
    assert "the password given is wrong" in str(raised)
    assert secret not in str(raised) and secret not in caplog.text
    parser = PdfParser(password=secret)
    assert secret not in repr(parser.config()) and secret not in parser.config_hash
    assert parser.config_hash == PdfParser().config_hash


def test_empty_file() -> None:
    raised = failure("empty.pdf", data=b"")
    assert str(raised) == "empty.pdf: is empty (0 bytes), not a PDF; fix or exclude it"


def test_page_cap_refuses_before_reading_any_page(monkeypatch: pytest.MonkeyPatch) -> None:
    def unexpected(*_args: object) -> None:
        raise AssertionError("a page was read despite the page cap")

    monkeypatch.setattr(_pdf_extract._PageReader, "read", unexpected)
    raised = failure("bashref.pdf", PdfParser(max_pages=195))
    assert str(raised) == (
        "bashref.pdf: has 196 pages, more than the PDF parser's max_pages=195; raise "
        "PdfParser(max_pages=...) to ingest it"
    )


def test_character_cap() -> None:
    raised = failure("multicolumn.pdf", PdfParser(max_characters=5000))
    message = str(raised)
    assert message.startswith("multicolumn.pdf: more than max_characters=5000 characters")
    assert "raise PdfParser(max_characters=...)" in message


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"max_pages": 0}, "'max_pages' must be an int >= 1"),
        ({"max_characters": 2.5}, "'max_characters' must be an int >= 1"),
        ({"output_format": "html"}, "'output_format' must be one of ('markdown', 'docling')"),
        ({"backend": "pdfminer"}, "'backend' must be one of ('pypdfium2', 'pymupdf')"),
        ({"password": b"secret"}, "'password' must be a str or None (got bytes)"),
        ({"use_outline": "yes"}, "'use_outline' must be a bool"),
    ],
)
def test_options_are_checked(options: dict[str, object], expected: str) -> None:
    with pytest.raises(ConfigurationError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        PdfParser(**options)  # type: ignore[arg-type]


def test_config_names_the_caps() -> None:
    config = PdfParser(max_pages=10, max_characters=99).config()
    assert config == {
        "version": PdfParser.version,
        "max_bytes": 50 * 1024 * 1024,
        "max_pages": 10,
        "max_characters": 99,
        "output_format": "markdown",
        "use_outline": True,
        "backend": "pypdfium2",
    }


def test_failures_in_a_pipeline_are_item_failures_not_crashes(tmp_path: Path) -> None:
    for name in ("scanned_ocr_test.pdf", "malformed_invalid.pdf", "multicolumn.pdf"):
        (tmp_path / name).write_bytes((PDF / name).read_bytes())
    found = discover(tmp_path, parsable_types=None)
    assert [(f.relative_path, f.state, f.source_type) for f in found] == [
        ("malformed_invalid.pdf", "accepted", "pdf"),
        ("multicolumn.pdf", "accepted", "pdf"),
        ("scanned_ocr_test.pdf", "accepted", "pdf"),
    ]
    raw = [source.to_document() for source in found]
    recorder = EventRecorder()
    output = Pipeline(
        PdfParser()(raw), policy=Policy(on_failure="skip"), listeners=[recorder]
    ).run_sync()
    assert [document.source_id for document in output] == ["multicolumn.pdf"]
    assert sorted((f.item_id, f.error_type) for f in recorder.failures) == [
        ("malformed_invalid.pdf", "ParsingError"),
        ("scanned_ocr_test.pdf", "NeedsOcrError"),
    ]
