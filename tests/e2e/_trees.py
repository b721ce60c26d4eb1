"""Fixture trees of real documents and independent readers of what ``fastrag ingest`` wrote.

Everything here is deliberately independent of the code under test: headings are found
with small format-specific scanners, parsed text is decoded with the standard library,
and records are read back as plain JSON.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from fastrag.cli.main import main
from tests._paths import CORPUS, NODE_API_DOCS

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "documents"
WEB = CORPUS / "web"
PDF = CORPUS / "pdf" / "multicolumn.pdf"
BENCH_MD = NODE_API_DOCS


def tenant_tree(root: Path, tenants: dict[str, str], texts: dict[str, str] | None = None) -> Path:
    """``root/docs``: each Node.js API doc of ``tenants`` (or its text from ``texts``) with
    a sidecar naming its tenant; ``querystring.md`` is also restricted to the ``ops`` ACL."""
    docs = root / "docs"
    docs.mkdir(parents=True)
    for name, tenant in tenants.items():
        if texts and name in texts:
            (docs / name).write_text(texts[name], encoding="utf-8")
        else:
            shutil.copyfile(NODE_API_DOCS / name, docs / name)
        sidecar: dict[str, Any] = {"tenant": tenant}
        if name == "querystring.md":
            sidecar["acl"] = ["ops"]
        (docs / f"{name}.meta.json").write_text(json.dumps(sidecar), encoding="utf-8")
    return docs


def build_tree(root: Path) -> Path:
    """examples/ (7 real documents), web/ (3 real documents, two identical to examples/)
    and papers/ (one real two-column PDF)."""
    shutil.copytree(EXAMPLES, root / "examples")
    shutil.copytree(WEB, root / "web")
    for path in (root / "web").iterdir():
        path.chmod(0o644)
    (root / "papers").mkdir()
    shutil.copyfile(PDF, root / "papers" / PDF.name)
    return root


def ingest(tree: Path, output: Path, *extra: str) -> int:
    """Run ``fastrag ingest`` in this process; returns its exit status."""
    return main(["ingest", str(tree), "-o", str(output), *extra])


def records(output: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest_rows(output: Path) -> dict[str, dict[str, Any]]:
    """``{path: row}`` of the manifest next to ``output``, read with plain sqlite3."""
    path = output.with_name(output.name + ".manifest.sqlite")
    with sqlite3.connect(path) as connection:
        connection.row_factory = sqlite3.Row
        rows = connection.execute("SELECT * FROM fastrag_manifest_files").fetchall()
    return {row["path"]: dict(row) for row in rows}


def parsed_text(path: Path) -> str:
    """The parsed content of a UTF-8 source, as the contract defines it (BOM removed)."""
    return path.read_bytes().decode("utf-8-sig")


_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+:.])\1{2,}[ \t]*$")
_HTML_HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def loose(text: str) -> str:
    """A title compared loosely: inline markup characters dropped, whitespace collapsed."""
    text = html.unescape(text).replace("¶", "")
    text = re.sub(r":[\w.+-]+(?::[\w.+-]+)?:(?=`)", "", text)  # RST roles: :mod:`json`
    text = re.sub(r"`[!~]", "`", text)  # Sphinx's no-link / last-part prefixes
    text = re.sub(r"[`*_\\]", "", text)
    return " ".join(text.split())


def headings(source_type: str, content: str) -> list[str]:
    """The document's heading titles, in document order (loosely normalized)."""
    if source_type == "markdown":
        titles, fenced = [], False
        for line in content.splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
            match = None if fenced else _ATX.match(line)
            if match:
                titles.append(loose(match.group(2)))
        return titles
    if source_type == "rst":
        lines = content.splitlines()
        return [
            loose(lines[index - 1])
            for index in range(1, len(lines))
            if _RST_UNDERLINE.match(lines[index])
            and lines[index - 1].strip()
            and not _RST_UNDERLINE.match(lines[index - 1])
        ]
    if source_type == "html":
        return [loose(_TAG.sub("", match.group(2))) for match in _HTML_HEADING.finditer(content)]
    return []


def bench_tree(root: Path, limit_bytes: int) -> Path:
    """Real Markdown, about ``limit_bytes`` in total: Node.js's API pages (smallest first)
    from Debian's nodejs package, topped up with numbered copies of the repository's own
    real Markdown (golden sources and examples) on a machine without those docs."""
    root.mkdir(parents=True)
    total = 0
    node_pages = sorted(BENCH_MD.glob("*.md"), key=lambda p: (p.stat().st_size, p.name))
    for path in node_pages:
        if total + path.stat().st_size > limit_bytes:
            return root
        shutil.copyfile(path, root / path.name)
        total += path.stat().st_size
    own = sorted([*(REPO / "tests" / "golden" / "markdown").glob("*.src"), *EXAMPLES.glob("*.md")])
    copy = 0
    while total < limit_bytes:
        source = own[copy % len(own)]
        shutil.copyfile(source, root / f"copy-{copy:04d}-{source.stem}.md")
        total += source.stat().st_size
        copy += 1
    return root
