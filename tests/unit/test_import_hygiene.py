"""``import fastrag`` stays cheap, and lower layers never import higher ones."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "fastrag"

HEAVY = (
    "torch",
    "docling",
    "docling_core",
    "pymilvus",
    "dask",
    "distributed",
    "ray",
    "sentence_transformers",
    "transformers",
    "tiktoken",
    "tokenizers",
    "pyromark",
    "docutils",
    "pypdfium2",
    "httpx",
    "rich",
)


def test_import_fastrag_loads_no_heavy_dependency() -> None:
    probe = (
        "import sys, fastrag, fastrag.models, fastrag.normalization, fastrag.exceptions\n"
        f"heavy = {HEAVY!r}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]", result.stdout


# Layer of each top-level package; a module may import only its own layer or lower ones.
LAYERS = {
    "models": 0,
    "exceptions": 0,
    "_optional": 0,
    "_checks": 0,
    "_collector": 0,
    "_titles": 0,
    "_pure": 0,
    "normalization": 1,
    "tokenization": 1,
    "packing": 2,
    "pipeline": 2,
    "ingestion": 3,
    "retrieval": 3,
    "llm": 3,
    "benchmarking": 3,
    "inspection": 3,
    "cli": 4,
}


def _imported_fastrag_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "fastrag" and len(parts) > 1:
                found.add(parts[1])
    return found


MODULES = sorted(p for p in SRC.rglob("*.py") if p.relative_to(SRC).parts[0] != "__init__.py")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_layers_import_only_downward(path: Path) -> None:
    package = path.relative_to(SRC).parts[0].removesuffix(".py")
    own_layer = LAYERS.get(package)
    assert own_layer is not None, f"{package} has no layer in DESIGN.md's table; add it here"
    for imported in _imported_fastrag_packages(path):
        imported_layer = LAYERS.get(imported)
        assert imported_layer is not None, f"{path.name} imports unknown package {imported}"
        assert imported_layer <= own_layer, (
            f"{path.relative_to(SRC)} (layer {own_layer}) imports fastrag.{imported} "
            f"(layer {imported_layer}); lower layers never import higher ones"
        )
