"""``FASTRAG_PURE_PYTHON=1``: import fastrag's Python sources even where compiled ones exist.

A built package ships the packing engine's hot modules compiled by mypyc (setup.py) next
to their sources; Python's import system prefers the compiled file. The compiled code is
the same code, but it cannot be stepped through in a debugger, monkeypatched, or traced
for coverage, and its tracebacks name no source lines. Setting this variable before
fastrag is first imported makes every fastrag module load from its ``.py`` file instead,
with identical output (the test suite runs both ways).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

__all__ = ["compiled", "prefer_sources", "sources_preferred"]

ENVIRONMENT_VARIABLE = "FASTRAG_PURE_PYTHON"


class _SourcesFirst(importlib.abc.MetaPathFinder):
    """Finds ``fastrag.*`` modules as the path finder does, but from ``.py`` when one exists."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("fastrag."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        origin = spec.origin if spec is not None else None
        if origin is None or not origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            return spec
        source = Path(origin).with_name(fullname.rpartition(".")[2] + ".py")
        if not source.is_file():
            return spec
        return importlib.util.spec_from_file_location(fullname, source)


def sources_preferred() -> bool:
    """Whether the environment asks for the Python sources (``FASTRAG_PURE_PYTHON=1``).

    Hand-written C modules have no source to fall back on: the code using one checks
    this and takes its own Python path instead.
    """
    return os.environ.get(ENVIRONMENT_VARIABLE) == "1"


def prefer_sources() -> None:
    """Install the sources-first finder once, if the environment asks for it."""
    if not sources_preferred():
        return
    if not any(isinstance(finder, _SourcesFirst) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourcesFirst())


def compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from a compiled extension rather than its source."""
    origin = getattr(getattr(module, "__spec__", None), "origin", None) or ""
    return origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
