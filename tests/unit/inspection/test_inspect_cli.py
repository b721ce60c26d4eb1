"""``fastrag inspect``: the page with ``--html``, tables without, exit statuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._paths import REPO
from tests.unit.inspection._cli import run_inspect
from tests.unit.inspection._page import read_page

EXAMPLE = REPO / "examples" / "documents" / "wiki.md"


def test_html_writes_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "page.html"
    assert run_inspect(str(EXAMPLE), "--html", str(out), "--max-tokens", "200") == 0
    page = read_page(out.read_text("utf-8"))
    assert len(page.card_ids) > 5
    assert f"{len(page.card_ids)} chunks -> {out}" in capsys.readouterr().out


def test_without_html_prints_the_summary_and_every_chunk(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_inspect(str(EXAMPLE), "--max-tokens", "200", "--tokenizer", "utf8-bytes") == 0
    out = capsys.readouterr().out
    assert "Tokens p50 / p95 / max" in out and "max 200, target 133" in out
    assert "utf8-bytes" in out


def test_headings_are_printed_literally_without_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "doc.md"
    path.write_text("# [bold red]Loud[/] \x1b[31mred\n\nBody.\n", encoding="utf-8")
    assert run_inspect(str(path)) == 0
    out = capsys.readouterr().out
    assert "[bold red]Loud[/]" in out
    assert "\x1b" not in out


def test_errors_and_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_inspect(str(tmp_path)) == 1
    assert run_inspect(str(EXAMPLE), "--max-tokens", "0") == 2
    assert "must be an integer >= 1" in capsys.readouterr().err
