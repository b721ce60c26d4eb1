"""Where tests find real documents that live outside the repository.

``shared/`` (the project's corpus of real documents) sits beside the repository: at
``/work/shared`` for developers and as a copy next to CI's fresh clone. Node.js's API docs
come from Debian's ``nodejs`` package, which this kind of machine has installed.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("FASTRAG_SHARED_DIR", REPO.parent / "shared"))
CORPUS = SHARED / "corpus"
NODE_API_DOCS = Path("/usr/share/doc/nodejs/api")
