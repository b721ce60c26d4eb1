"""The mypyc-compiled engine (setup.py) against its Python sources.

``make test`` runs the suite twice: on the sources (``FASTRAG_PURE_PYTHON=1``, traced for
coverage) and the engine's tests on the compiled build, with ``FASTRAG_REQUIRE_COMPILED=1``
so that a build that silently fell back to pure Python fails here instead of passing.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fastrag._pure import compiled
from fastrag.tokenization._pretokens import native_available
from tests._paths import CORPUS, NODE_API_DOCS

ROOT = Path(__file__).resolve().parents[2]


def _setup_list(name: str) -> list[str]:
    """A list of paths from setup.py (``COMPILED``, ``NATIVE``), read without running it."""
    for node in ast.parse((ROOT / "setup.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == name:
            paths: list[str] = ast.literal_eval(node.value)
            return paths
    raise AssertionError(f"setup.py has no {name} list")


COMPILED_MODULES = sorted(
    path.removeprefix("src/").removesuffix(".py").replace("/", ".")
    for path in _setup_list("COMPILED")
)
PURE = os.environ.get("FASTRAG_PURE_PYTHON") == "1"


def _loaded_compiled() -> dict[str, bool]:
    return {name: compiled(importlib.import_module(name)) for name in COMPILED_MODULES}


def test_setup_lists_the_engine_modules() -> None:
    assert "fastrag.packing.costs" in COMPILED_MODULES
    assert "fastrag.tokenization._pretokens" in COMPILED_MODULES
    for name in COMPILED_MODULES:
        assert (ROOT / "src" / (name.replace(".", "/") + ".py")).is_file(), name


def test_the_build_is_compiled_when_required() -> None:
    loaded = _loaded_compiled()
    if os.environ.get("FASTRAG_REQUIRE_COMPILED") == "1":
        assert all(loaded.values()), (
            f"not compiled: {[name for name, done in loaded.items() if not done]}; "
            "run `make install` (it needs a C compiler)"
        )
        assert native_available(), "the C counter (_cl100k_ascii) is not built: `make install`"
    elif PURE:
        assert not any(loaded.values())
        assert not native_available()
    else:
        # All or none: compiled modules call each other directly, so a build with some
        # of them missing is broken, not partly fast.
        assert len(set(loaded.values())) == 1, loaded


def test_no_compiled_module_is_older_than_its_source() -> None:
    # An editable install keeps each compiled file beside its source and Python imports
    # the compiled one: after an edit, a stale build would run the old code.
    sources = [ROOT / "src" / (name.replace(".", "/") + ".py") for name in COMPILED_MODULES]
    sources += [ROOT / path for path in _setup_list("NATIVE")]
    assert any(source.suffix == ".c" for source in sources)
    for source in sources:
        for built in source.parent.glob(source.stem + ".*.so"):
            assert built.stat().st_mtime >= source.stat().st_mtime, (
                f"{built.name} is older than {source.name}: run `make install` to rebuild"
            )


def test_the_tokenizer_imports_without_mypy_extensions() -> None:
    # ``mypyc_attr`` comes from mypy_extensions, which a plain install may not have: both
    # builds must import (and tokenize) without it.
    probe = (
        "import sys; sys.modules['mypy_extensions'] = None\n"
        "from fastrag.normalization.formats.html import HtmlNormalizer\n"
        "from fastrag.models import Document\n"
        "tree = HtmlNormalizer().normalize("
        "Document('d', 't', '<h1>T</h1><p>Hello</p>', {'content_format': 'html'}))\n"
        "span = tree.units[-1].span\n"
        "print(tree.content[span.start : span.end])"
    )
    for pure in ("1", "0"):
        done = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            env={**os.environ, "FASTRAG_PURE_PYTHON": pure},
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip() == "Hello"


_CHUNK_EVERYTHING = """
import hashlib, json, sys
from fastrag.ingestion.steps.chunking import StructureAwareChunker, TiktokenTokenizer
from fastrag.models import Document
from fastrag._pure import compiled
from fastrag.tokenization._pretokens import native_available
import fastrag.packing.costs as costs

digest = hashlib.sha256()
chunks = 0
for budget, target, overlap in ((512, 400, 0), (128, 100, 0), (300, 200, 40)):
    chunker = StructureAwareChunker(
        tokenizer=TiktokenTokenizer("cl100k_base"), max_tokens=budget,
        target_tokens=target, min_preferred_tokens=min(100, target),
        overlap_tokens=overlap, cache=False,
    )
    for path, content_format in json.loads(sys.argv[1]):
        text = open(path, encoding="utf-8", newline="").read()
        document = Document(path, "test", text, {"content_format": content_format})
        for content, metadata in chunker.split(document):
            chunks += 1
            digest.update(content.encode())
            digest.update(repr(sorted(dict(metadata).items())).encode())
print(json.dumps({"compiled": compiled(costs), "chunks": chunks, "digest": digest.hexdigest()}))
"""


def test_compiled_and_python_engines_give_byte_identical_chunks() -> None:
    # Every golden source (the four text formats), the shared corpus's web pages and a
    # few of Node.js's Markdown API docs: code, tables, lists, long prose.
    formats = {"markdown": "markdown", "html": "html", "rst": "rst", "text": "text"}
    documents = [
        (str(path), formats[path.parent.name])
        for path in sorted((ROOT / "tests" / "golden").glob("*/*.src"))
    ]
    suffixes = {".md": "markdown", ".html": "html"}
    documents += [
        (str(path), suffixes[path.suffix])
        for path in sorted(CORPUS.rglob("*"))
        if path.suffix in suffixes
    ]
    documents += [
        (str(NODE_API_DOCS / name), "markdown")
        for name in ("buffer.md", "stream.md", "errors.md")
        if (NODE_API_DOCS / name).is_file()
    ]

    def run(pure: bool) -> dict[str, object]:
        environment = {**os.environ, "FASTRAG_PURE_PYTHON": "1" if pure else "0"}
        done = subprocess.run(
            [sys.executable, "-c", _CHUNK_EVERYTHING, json.dumps(documents)],
            capture_output=True,
            text=True,
            env=environment,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        result: dict[str, object] = json.loads(done.stdout)
        return result

    python, native = run(pure=True), run(pure=False)
    assert python["compiled"] is False
    assert python["chunks"] == native["chunks"] > 1000
    if native["compiled"] is False:
        pytest.skip("this build is pure Python: nothing to compare")
    assert native["digest"] == python["digest"]


def test_packing_leaves_no_cyclic_garbage() -> None:
    # Compiled, nested functions and their shared environment refer to each other: a
    # closure in the packer left each run's atoms and blocks (105,000 objects over 30
    # Markdown files) for the collector, 0.8x the input in memory until it ran.
    import gc

    from fastrag.ingestion.steps.chunking import TiktokenTokenizer
    from fastrag.packing import PackingConfig, pack
    from tests.unit.packing._engine_support import normalize

    text = (ROOT / "tests" / "golden" / "markdown" / "nodejs_api_path.src").read_text("utf-8")
    tree = normalize(text, "markdown")
    tokenizer = TiktokenTokenizer("cl100k_base")
    config = PackingConfig(max_tokens=128, target_tokens=100, overlap_tokens=20)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        pieces = pack(tree, tokenizer, config)
        assert len(pieces) > 20
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
