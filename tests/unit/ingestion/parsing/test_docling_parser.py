"""``DoclingParser`` on the real Office corpus: structure, offline, reproducible, clear errors."""

from __future__ import annotations

import hashlib
import io
import json
import socket
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from fastrag.exceptions import ConfigurationError, ParsingError
from fastrag.ingestion.sources import discover, raw_documents
from fastrag.ingestion.steps.parsing import _docling_convert
from fastrag.ingestion.steps.parsing.docling import DoclingParser
from fastrag.models import ContentFormat, Document
from fastrag.pipeline import EventRecorder, ItemFailed, Pipeline, Policy
from tests._paths import CORPUS

pytestmark = pytest.mark.docling

OFFICE = CORPUS / "office"
WEB = CORPUS / "web"


def raw(root: Path, name: str, override: str = "") -> Document:
    """The raw document discovery makes of ``root / name`` (every sniffed type accepted)."""
    files = discover(root, include=[name], parsable_types=None, format_overrides=override)
    (document,) = raw_documents(files)
    return document


def run(parser: DoclingParser, documents: list[Document]) -> tuple[list[Document], EventRecorder]:
    recorder = EventRecorder()
    pipeline = Pipeline(parser(documents), policy=Policy(on_failure="skip"), listeners=[recorder])
    return pipeline.run_sync(), recorder


def parse(name: str, root: Path = OFFICE, **options: Any) -> Document:
    (parsed,), recorder = run(DoclingParser(**options), [raw(root, name)])
    assert recorder.failures == ()
    return parsed


def only_failure(parser: DoclingParser, document: Document) -> ItemFailed:
    out, recorder = run(parser, [document])
    assert out == []
    (failure,) = recorder.failures
    assert failure.error_type == "ParsingError"
    return failure


def docling_document(parsed: Document) -> Any:
    from docling_core.types.doc.document import DoclingDocument

    return DoclingDocument.model_validate_json(parsed.content)


@pytest.fixture(scope="module")
def word_sample() -> Document:
    return parse("word_sample.docx")


def test_docx_becomes_a_serialized_docling_document_with_the_agreed_metadata(
    word_sample: Document,
) -> None:
    source = OFFICE / "word_sample.docx"
    data = source.read_bytes()
    metadata = dict(word_sample.metadata)
    assert metadata == {
        "source": "word_sample.docx",
        "source_type": "docx",
        "content_format": ContentFormat.DOCLING,
        "parser_version": "DoclingParser:1",
        "parse_diagnostics": ("images: pixels of 1 picture(s) not kept (text only)",),
        "relative_path": "word_sample.docx",
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "detected_by": "content",
    }
    document = docling_document(word_sample)
    assert document.origin.filename == "word_sample.docx"
    headings = [
        (t.label.value, t.text)
        for t in document.texts
        if t.label.value in ("title", "section_header")
    ]
    assert headings == [
        ("title", "Swimming in the lake"),
        ("section_header", "Let’s swim!"),
        ("section_header", "Let’s eat"),
    ]
    assert [len(table.data.table_cells) > 0 for table in document.tables] == [True]
    (picture,) = document.pictures
    assert picture.image is None
    # Serialized compactly with sorted keys: re-dumping the parsed JSON reproduces it.
    reparsed = json.loads(word_sample.content)
    assert json.dumps(reparsed, sort_keys=True, ensure_ascii=False, separators=(",", ":")) == (
        word_sample.content
    )


def test_markdown_output_flattens_the_same_structure() -> None:
    parsed = parse("word_sample.docx", output_format="markdown")
    assert parsed.metadata["content_format"] == ContentFormat.MARKDOWN
    assert parsed.content.startswith(
        "Summer activities\n\n# Swimming in the lake\n\nDuck\n\n<!-- image -->\n\n"
        "Figure 1: This is a cute duckling\n\n## Let’s swim!\n\n"
    )
    assert "### Let’s eat\n" in parsed.content
    assert "| Leaves  | Ash, Elm, Maple                  |                     50 |" in (
        parsed.content
    )


def test_pptx_slides_and_xlsx_sheets_keep_page_provenance() -> None:
    slides = docling_document(parse("powerpoint_sample.pptx"))
    titles = [(t.prov[0].page_no, t.text) for t in slides.texts if t.label.value == "title"]
    assert titles == [(1, "Test Table Slide"), (2, "Second slide title")]
    assert sorted(slides.pages) == [1, 2, 3]
    sheets = docling_document(parse("xlsx_05_table_with_title.xlsx"))
    title, table = sheets.tables  # Docling reads the lone title cell as a 1x1 table
    assert [title.prov[0].page_no, table.prov[0].page_no] == [1, 1]
    assert [cell.text for cell in title.data.table_cells] == ["Number of freshwater ducks per year"]
    assert (table.data.num_rows, table.data.num_cols) == (7, 2)
    assert [cell.text for cell in table.data.table_cells][:4] == [
        "Year",
        "Freshwater Ducks",
        "2019",
        "120",
    ]


def test_output_is_byte_identical_across_instances_and_processes(word_sample: Document) -> None:
    again = parse("word_sample.docx")
    assert (again.content, again.id) == (word_sample.content, word_sample.id)
    script = (
        "import hashlib, sys\n"
        "from fastrag.ingestion.sources import discover, raw_documents\n"
        "from fastrag.ingestion.steps.parsing.docling import DoclingParser\n"
        "from fastrag.pipeline import Pipeline\n"
        f"(raw,) = raw_documents(discover({str(OFFICE)!r}, include=['word_sample.docx'],"
        " parsable_types=None))\n"
        "(doc,) = Pipeline(DoclingParser()([raw])).run_sync()\n"
        "print(doc.id, hashlib.sha256(doc.content.encode()).hexdigest())\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    expected = f"{word_sample.id} {hashlib.sha256(word_sample.content.encode()).hexdigest()}"
    assert child.stdout.strip() == expected


def test_the_broken_xlsx_fails_naming_the_file_and_doclings_reason() -> None:
    failure = only_failure(DoclingParser(), raw(OFFICE, "readxl-datasets.xlsx"))
    assert failure.message == (
        "readxl-datasets.xlsx: Docling could not open this xlsx file (MsExcelDocumentBackend "
        'could not load document, because KeyError: "There is no item named '
        "'xl/drawings/drawing1.xml' in the archive\"); re-save it from its application, or "
        "exclude it"
    )


def test_a_truncated_docx_fails_with_the_zip_error(tmp_path: Path) -> None:
    data = (OFFICE / "word_sample.docx").read_bytes()
    (tmp_path / "cut.docx").write_bytes(data[:20_000])
    document = raw(tmp_path, "cut.docx", override="docx")
    failure = only_failure(DoclingParser(), document)
    assert failure.message.startswith("cut.docx: Docling could not open this docx file (")
    assert "BadZipFile" in failure.message


def test_pdf_is_refused_pointing_to_pdf_parser() -> None:
    failure = only_failure(DoclingParser(), raw(CORPUS / "pdf", "multicolumn.pdf"))
    assert failure.message == (
        "multicolumn.pdf: DoclingParser does not convert PDF (Docling's PDF pipeline downloads "
        "a layout model, and fastrag never downloads at run time); route PDFs to "
        'PdfParser(output_format="docling") instead'
    )


def test_other_source_types_are_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("plain\n")
    failure = only_failure(DoclingParser(), raw(tmp_path, "notes.txt"))
    assert failure.message.startswith(
        "notes.txt: DoclingParser converts ['docx', 'html', 'markdown', 'pptx', 'xlsx'] files, "
        "but this one's source_type is 'text'"
    )


@pytest.mark.parametrize(
    ("cap", "name"),
    [("MAX_UNPACKED_BYTES", "unpacks to"), ("MAX_ARCHIVE_ENTRIES", "archive entries")],
)
def test_office_archives_over_the_caps_are_refused_before_parsing(
    monkeypatch: pytest.MonkeyPatch, cap: str, name: str
) -> None:
    with zipfile.ZipFile(OFFICE / "powerpoint_sample.pptx") as archive:
        entries = archive.infolist()
    unpacked = sum(entry.file_size for entry in entries)
    limit = unpacked - 1 if cap == "MAX_UNPACKED_BYTES" else len(entries) - 1
    monkeypatch.setattr(_docling_convert, cap, limit)
    failure = only_failure(DoclingParser(), raw(OFFICE, "powerpoint_sample.pptx"))
    assert failure.message.startswith("powerpoint_sample.pptx: this pptx file ")
    assert name in failure.message
    assert failure.message.endswith("it is refused as a possible zip bomb")


def test_invalid_output_format_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match=r"must be one of \['docling', 'markdown'\]"):
        DoclingParser(output_format="json")  # type: ignore[arg-type]


def test_config_names_the_output_format_and_doclings_versions() -> None:
    from importlib.metadata import version

    docling, markdown = DoclingParser(), DoclingParser(output_format="markdown")
    assert dict(docling.config()) == {
        "version": 1,
        "max_bytes": docling.max_bytes,
        "output_format": "docling",
        "docling": version("docling-slim"),
        "docling_core": version("docling-core"),
    }
    assert docling.config_hash != markdown.config_hash


@pytest.fixture
def network_attempts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every socket connection or name lookup raises and is recorded."""
    attempts: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(repr(args[:2]))
        raise OSError("network access is disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return attempts


def test_conversion_never_touches_the_network(network_attempts: list[str]) -> None:
    # wiki_duck.html links 27 remote images: none may be fetched.
    html = parse("wiki_duck.html", WEB)
    markdown = parse("wiki.md", WEB, output_format="markdown")
    office = [parse(name) for name in ("officer-example.docx", "officer-example.pptx")]
    assert network_attempts == []
    duck = docling_document(html)
    assert len(duck.pictures) == 27
    assert all(picture.image is None for picture in duck.pictures)
    assert markdown.metadata["source_type"] == "markdown"
    assert markdown.content.startswith("# IBM\n")
    assert [d.metadata["content_format"] for d in office] == [ContentFormat.DOCLING] * 2


def _docx_with_a_shape(path: Path) -> None:
    """A DOCX whose only drawing is a DrawingML shape: Docling rasterizes those with soffice."""
    import docx
    from docx.oxml import parse_xml

    namespaces = (
        'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
        'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
        'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
        'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"'
    )
    shape = (
        f"<w:drawing {namespaces}><wp:inline><wp:extent cx='914400' cy='914400'/>"
        "<wp:docPr id='1' name='Shape 1'/><a:graphic><a:graphicData "
        "uri='http://schemas.microsoft.com/office/word/2010/wordprocessingShape'>"
        "<wps:wsp><wps:spPr/><wps:bodyPr/></wps:wsp></a:graphicData></a:graphic>"
        "</wp:inline></w:drawing>"
    )
    document = docx.Document()
    document.add_heading("Shapes", level=1)
    paragraph = document.add_paragraph("Before the shape.")
    paragraph.add_run()._r.append(parse_xml(shape))
    buffer = io.BytesIO()
    document.save(buffer)
    path.write_bytes(buffer.getvalue())


def test_libreoffice_is_never_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "soffice-ran"
    fake = tmp_path / "soffice"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {marker}\nexit 1\n')
    fake.chmod(0o755)
    monkeypatch.setenv("DOCLING_LIBREOFFICE_CMD", str(fake))
    folder = tmp_path / "in"
    folder.mkdir()
    _docx_with_a_shape(folder / "shape.docx")
    parsed = parse("shape.docx", folder, output_format="markdown")
    assert parsed.content == "## Shapes\n\nBefore the shape."
    assert not marker.exists()
    # Control: without the guard, Docling itself runs the configured soffice on this file.
    monkeypatch.setattr(_docling_convert, "_disarm_external_tools", lambda source: None)
    parse("shape.docx", folder, output_format="markdown")
    assert "--convert-to pdf" in marker.read_text()


def test_parse_error_is_a_parsing_error_when_called_directly() -> None:
    parser = DoclingParser()
    document = raw(OFFICE, "readxl-datasets.xlsx")
    with pytest.raises(ParsingError, match=r"^readxl-datasets\.xlsx: Docling could not open"):
        parser.parse((OFFICE / "readxl-datasets.xlsx").read_bytes(), document)
