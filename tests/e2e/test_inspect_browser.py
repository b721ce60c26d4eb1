"""``fastrag inspect --html`` in a real headless Chromium: it renders, every chunk is
there, a hostile document cannot break out, and a screenshot is produced.

Chromium is Debian's ``chromium`` package (``apt-get install -y chromium``); where it is
absent the test is skipped, saying so. The browser runs with networking and sync off, a
fresh profile per launch, and a timeout, so the test can neither hang nor leak state.
"""

from __future__ import annotations

import struct
import subprocess
import tempfile
from pathlib import Path
from typing import Final

import pytest

from fastrag.inspection import inspect_file
from tests.unit.inspection._cli import run_inspect
from tests.unit.inspection._page import ALLOWED_TAGS, read_page
from tests.unit.inspection.conftest import HOSTILE_PARTS, hostile_markdown

CHROMIUM: Final = Path("/usr/bin/chromium")
FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
TIMEOUT: Final = 25
PNG_SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"{CHROMIUM} is absent: install Debian's chromium (apt-get install -y chromium) "
    "to run the browser test of fastrag inspect",
)


def _chromium(*arguments: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="fastrag-chromium-") as profile:
        return subprocess.run(
            [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *arguments],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=True,
        )


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The hostile document and the page ``fastrag inspect --html`` wrote for it."""
    folder = tmp_path_factory.mktemp("inspect")
    document = folder / "hostile.md"
    document.write_text(hostile_markdown(), encoding="utf-8")
    out = folder / "hostile.html"
    assert run_inspect(str(document), "--html", str(out), "--max-tokens", "80") == 0
    return document, out


def test_the_rendered_dom_has_every_chunk_and_nothing_injected(page: tuple[Path, Path]) -> None:
    document, out = page
    dom = _chromium("--dump-dom", out.as_uri()).stdout
    rendered = read_page(dom)
    records = inspect_file(document, max_tokens=80).records
    assert rendered.card_ids == [record["chunk_id"] for record in records]
    assert rendered.run_chunks == set(range(len(records)))
    assert {tag for tag, _ in rendered.tags} <= ALLOWED_TAGS
    assert not [
        name for _, attributes in rendered.tags for name in attributes if name.startswith("on")
    ]
    # The hostile text is in the document pane as text, whole and in order.
    for part in HOSTILE_PARTS:
        assert part in rendered.document_text
    assert rendered.document_text == document.read_text("utf-8")


def test_a_screenshot_is_produced(page: tuple[Path, Path]) -> None:
    _, out = page
    shot = out.with_suffix(".png")
    _chromium(f"--screenshot={shot}", "--window-size=1280,2000", out.as_uri())
    data = shot.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    # IHDR is the first chunk: width and height follow its length and type.
    assert data[12:16] == b"IHDR"
    assert struct.unpack(">II", data[16:24]) == (1280, 2000)
    assert len(data) > 10_000  # a blank page compresses to far less
    print(f"screenshot artifact: {shot}")
