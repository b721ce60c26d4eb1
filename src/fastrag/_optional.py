"""Import optional libraries lazily, with an error that names the extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from fastrag.exceptions import MissingDependencyError

__all__ = ["require"]


def require(module: str, *, extra: str, feature: str) -> ModuleType:
    """Import ``module`` or raise ``MissingDependencyError`` naming ``fastrag-ai[extra]``."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingDependencyError(feature, extra, module) from error
