"""The one serialization of a ``DoclingDocument`` in ``Document.content``.

Both Docling producers (``DoclingParser`` and ``PdfParser(output_format="docling")``)
write it, so the same document is the same bytes whichever route built it: sorted keys,
no insignificant whitespace, non-ASCII kept as is.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docling_core.types.doc.document import DoclingDocument

__all__ = ["serialize"]


def serialize(document: DoclingDocument) -> str:
    """``document`` as deterministic JSON."""
    return json.dumps(
        document.export_to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
