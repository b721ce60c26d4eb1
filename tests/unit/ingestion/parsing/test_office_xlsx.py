"""``XlsxParser`` on the real workbooks of the shared corpus: sheets, tables, titles, merges."""

from __future__ import annotations

import io
import zipfile

import pytest

from fastrag.exceptions import ConfigurationError, ParsingError
from fastrag.ingestion.steps.chunking import StructureAwareChunker
from fastrag.ingestion.steps.parsing._office_xlsx_guard import range_area
from fastrag.ingestion.steps.parsing.xlsx import XlsxParser
from fastrag.models import ContentFormat, Document
from fastrag.normalization import NormalizerRegistry
from tests._paths import SHARED

OFFICE = SHARED / "corpus" / "office"

pytestmark = pytest.mark.skipif(not OFFICE.is_dir(), reason="shared corpus not present")

DEATHS_HEADER = "| Name | Profession | Age | Has kids | Date of birth | Date of death |"


def parse(name: str, data: bytes | None = None, parser: XlsxParser | None = None) -> Document:
    parser = parser or XlsxParser()
    raw = Document("raw", name, "", {})
    payload = (OFFICE / name).read_bytes() if data is None else data
    return parser.build_document(raw, parser.parse(payload, raw))


def section_paths(document: Document) -> set[tuple[str, ...]]:
    chunker = StructureAwareChunker(
        target_tokens=40, max_tokens=120, min_preferred_tokens=1, merge_small_sections=False
    )
    return {tuple(meta["heading_path"]) for _, meta in chunker.split(document)}


def tree_section_paths(document: Document) -> set[tuple[str, ...]]:
    """Every section's path in the normalized tree the chunker packs."""
    tree = NormalizerRegistry().normalize(document)
    return {
        (*(a.text for a in tree.ancestors(node) if a.kind == "section"), node.text)
        for node in tree.nodes
        if node.kind == "section"
    }


def test_xlsx_01_sheets_tables_and_merged_headers() -> None:
    document = parse("xlsx_01.xlsx")
    content = document.content
    assert document.metadata["content_format"] == ContentFormat.MARKDOWN
    assert document.metadata["parser_version"] == "XlsxParser:1"
    assert document.metadata["sheets"] == ("Sheet1", "Sheet2", "Sheet3", "Sheet4")
    assert "## Sheet1\n\n| first | second | third |\n|---|---|---|\n| 1 | 5 | 9 |" in content
    # Sheet2 holds three tables; the one touching the first from below is split off.
    sheet2 = content[content.index("## Sheet2") : content.index("## Sheet3")]
    assert sheet2.count("\n|---") == 3
    assert "| col-1 | col-2 | col-3 | col-4 |" in sheet2
    assert "| 8 | 16 | 24 | 32 |\n\n| col-1 | col-2 | col-3 |" in sheet2
    # Merged cells: value repeated over the range (A1:A2, B1:C1, B6:C7).
    assert "| first | header | header |\n|---|---|---|\n| first | second | third |" in content
    assert "| 8 | 9 | 9 |\n| 10 | 9 | 9 |" in content
    assert "| first (f) | header (f) | header (f) |" in content
    assert document.metadata["parse_diagnostics"] == ("hidden sheets: 1 included",)
    assert {path[0] for path in section_paths(document)} == {"Sheet1", "Sheet2", "Sheet3", "Sheet4"}


def test_title_row_above_a_table_is_a_heading_not_its_header() -> None:
    document = parse("xlsx_05_table_with_title.xlsx")
    assert document.content == (
        "## Duck Observations\n\n### Number of freshwater ducks per year\n\n"
        "| Year | Freshwater Ducks |\n|---|---|\n| 2019 | 120 |\n| 2020 | 135 |\n"
        "| 2021 | 150 |\n| 2022 | 170 |\n| 2023 | 160 |\n| 2024 | 180 |\n"
    )
    assert tree_section_paths(document) == {
        ("Duck Observations",),
        ("Duck Observations", "Number of freshwater ducks per year"),
    }


def test_defined_tables_and_notes_around_them() -> None:
    content = parse("readxl-deaths.xlsx").content
    assert content.count(DEATHS_HEADER + "\n|---|---|---|---|---|---|\n") == 2
    assert "| David Bowie | musician | 69 | TRUE | 1947-01-08 | 2016-01-10 |" in content
    assert "| Pat Summit | coach | 64 | TRUE | 1952-06-14 | 2016-06-28 |" in content
    # Notes above the table are text, merged "merging" (B4:E4) written once.
    assert "## arts\n\nLots of people\nsimply cannot resist writing some notes\n" in content
    assert "or merging cells\n\n" + DEATHS_HEADER in content
    assert "| Lots of people" not in content


def test_broken_datasets_workbook_is_recovered_in_streaming_mode() -> None:
    document = parse("readxl-datasets.xlsx")
    content = document.content
    assert document.metadata["sheets"] == ("iris", "mtcars", "chickwts", "quakes")
    (note,) = document.metadata["parse_diagnostics"]
    assert note.startswith("recovered: missing part: ")
    assert "xl/drawings/drawing1.xml" in note
    iris = content[content.index("## iris") : content.index("## mtcars")]
    assert iris.startswith(
        "## iris\n\n| Sepal.Length | Sepal.Width | Petal.Length | Petal.Width | Species |\n"
        "|---|---|---|---|---|\n| 5.1 | 3.5 | 1.4 | 0.2 | setosa |\n"
    )
    assert iris.count("\n| ") == 151  # header and 150 flowers
    assert "| mpg | cyl | disp | hp | drat | wt | qsec | vs | am | gear | carb |" in content
    assert "| weight | feed |" in content


def test_max_cells_caps_the_read_with_an_error_naming_it() -> None:
    with pytest.raises(ParsingError, match=r"readxl-datasets\.xlsx: .*max_cells=100"):
        parse("readxl-datasets.xlsx", parser=XlsxParser(max_cells=100))
    with pytest.raises(ConfigurationError, match="max_cells"):
        XlsxParser(max_cells=0)
    assert XlsxParser(max_cells=5).config()["max_cells"] == 5


def _workbook(fill: object) -> bytes:
    import openpyxl

    workbook = openpyxl.Workbook()
    fill(workbook.active)  # type: ignore[operator]
    stream = io.BytesIO()
    workbook.save(stream)
    return stream.getvalue()


def test_a_huge_merged_range_counts_against_the_cap() -> None:
    def merged(sheet: object) -> None:
        sheet["A1"] = "title"  # type: ignore[index]
        sheet.merge_cells("A1:J1000")  # type: ignore[attr-defined]

    with pytest.raises(ParsingError, match=r"merged\.xlsx: .*max_cells=5000"):
        parse("merged.xlsx", _workbook(merged), XlsxParser(max_cells=5000))


def _rewritten(data: bytes, old: bytes, new: bytes) -> bytes:
    """``data`` with ``old`` replaced by ``new`` in its worksheet part."""
    source = zipfile.ZipFile(io.BytesIO(data))
    stream = io.BytesIO()
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as package:
        for info in source.infolist():
            payload = source.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                assert old in payload
                payload = payload.replace(old, new)
            package.writestr(info, payload)
    return stream.getvalue()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b'mergeCell ref="A1:B2"', b'mergeCell ref="A1:XFD1048576"'),
        (b' ref="A1" r:id', b' ref="A:C" r:id'),
    ],
)
def test_ranges_openpyxl_would_expand_are_refused_before_loading(old: bytes, new: bytes) -> None:
    def ranged(sheet: object) -> None:
        sheet["A1"] = "x"  # type: ignore[index]
        sheet["A1"].hyperlink = "https://example.org/"  # type: ignore[index]
        sheet.merge_cells("A1:B2")  # type: ignore[attr-defined]

    data = _rewritten(_workbook(ranged), old, new)
    with pytest.raises(ParsingError, match=r"^bomb\.xlsx: XLSX merged and hyperlinked ranges"):
        parse("bomb.xlsx", data)


def test_range_area_counts_whole_rows_and_columns() -> None:
    assert range_area("B2:C3") == 4
    assert range_area("A:A") == 1_048_576
    assert range_area("2:3") == 2 * 16_384
    assert range_area("not a range") == 0


def test_formulas_are_never_evaluated() -> None:
    def formulas(sheet: object) -> None:
        sheet["A1"] = "n"  # type: ignore[index]
        sheet["B1"] = "double"  # type: ignore[index]
        sheet["A2"] = 21  # type: ignore[index]
        sheet["B2"] = "=A2*2"  # type: ignore[index]

    content = parse("formulas.xlsx", _workbook(formulas)).content
    # openpyxl saved no cached result, so the cell is empty: neither formula nor 42.
    assert content == "## Sheet\n\n| n | double |\n|---|---|\n| 21 |  |\n"


@pytest.mark.parametrize("name", sorted(p.name for p in OFFICE.glob("*.xlsx")))
def test_every_xlsx_parses_deterministically(name: str) -> None:
    assert parse(name) == parse(name)
