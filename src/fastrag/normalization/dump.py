"""A diff-readable text dump of a normalized tree, for golden files and debugging.

One line per node, indented by depth, with its kind, level, spans and a short quote of
its text; the units a node owns follow it; exclusions are listed at the end. The format
is stable: golden files compare it byte for byte.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from fastrag.normalization.model import CoverageUnit, NormalizedDocument, NormalizedNode

__all__ = ["dump_tree"]

_QUOTE_LIMIT = 72


def _quote(text: str) -> str:
    shown = text if len(text) <= _QUOTE_LIMIT else text[: _QUOTE_LIMIT - 1] + "…"
    # repr() escapes newlines and control characters, so one node stays one line.
    return repr(shown)


def _attributes(attributes: Mapping[str, Any]) -> str:
    if not attributes:
        return ""
    parts = [f"{key}={attributes[key]!r}" for key in sorted(attributes)]
    return " {" + ", ".join(parts) + "}"


def _spans(node: NormalizedNode) -> str:
    return " ".join(f"[{span.start},{span.end})" for span in node.spans) or "[]"


def dump_tree(normalized: NormalizedDocument) -> str:
    """Render ``normalized`` as indented text ending with a newline."""
    units_by_node: dict[str, list[CoverageUnit]] = defaultdict(list)
    for unit in normalized.units:
        units_by_node[unit.node_id].append(unit)
    depth: dict[str, int] = {}
    lines = [
        f"format {normalized.format} · {len(normalized.content)} chars · "
        f"{len(normalized.nodes)} nodes · {len(normalized.units)} units · "
        f"{len(normalized.exclusions)} exclusions"
    ]
    if normalized.metadata:
        lines.append(f"metadata{_attributes(normalized.metadata)}")
    for node in normalized.nodes:
        level = depth[node.parent_id] + 1 if node.parent_id is not None else 0
        depth[node.node_id] = level
        indent = "  " * level
        heading_level = f" L{node.level}" if node.level is not None else ""
        lines.append(
            f"{indent}{node.kind}{heading_level} {_spans(node)}"
            f"{_attributes(node.attributes)} {_quote(node.text)}"
        )
        if node.serialization:
            runs = " ".join(
                f"{s.display_start}-{s.display_end}>{s.source_start}-{s.source_end}"
                for s in node.serialization
            )
            lines.append(f"{indent}  map {runs}")
        owned = units_by_node.get(node.node_id)
        if owned:
            spans = " ".join(f"[{u.span.start},{u.span.end})" for u in owned)
            lines.append(f"{indent}  units {spans}")
    lines.extend(
        f"exclude [{exclusion.span.start},{exclusion.span.end}) {exclusion.reason}"
        for exclusion in normalized.exclusions
    )
    lines.extend(f"diagnostic {diagnostic}" for diagnostic in normalized.diagnostics)
    return "\n".join(lines) + "\n"
