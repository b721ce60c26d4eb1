"""The token histogram as inline SVG: no library, no script, no external reference.

Only numbers reach this module (token counts, the budget), so nothing in the drawing is
document-derived; the labels are still escaped, as every text node on the page is.
Bins are equal-width integer ranges starting at 0 and reaching past both the largest
chunk and the budget, so the budget line always falls inside the chart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Final

__all__ = ["Bin", "histogram_svg", "token_bins"]

_BINS: Final = 20
_WIDTH: Final = 640
_HEIGHT: Final = 200
_LEFT: Final = 40
_BOTTOM: Final = 30
_TOP: Final = 16
_RIGHT: Final = 10


@dataclass(frozen=True, slots=True)
class Bin:
    """Chunks with ``low <= tokens < high``."""

    low: int
    high: int
    count: int


def token_bins(counts: Sequence[int], budget: int | None, bins: int = _BINS) -> tuple[Bin, ...]:
    """``bins`` equal integer ranges from 0 covering every count and the budget."""
    upper = max([*counts, budget or 0, 1])
    width = upper // bins + 1  # width * bins > upper, so every count falls in a bin
    tallies = [0] * bins
    for count in counts:
        tallies[count // width] += 1
    return tuple(Bin(i * width, (i + 1) * width, tallies[i]) for i in range(bins))


def histogram_svg(counts: Sequence[int], budget: int | None) -> str:
    """An ``<svg>`` bar chart of ``counts`` with a dashed line at ``budget``."""
    table = token_bins(counts, budget)
    span = table[-1].high
    tallest = max((item.count for item in table), default=0) or 1
    plot_w = _WIDTH - _LEFT - _RIGHT
    plot_h = _HEIGHT - _TOP - _BOTTOM
    base = _TOP + plot_h

    def x(tokens: float) -> float:
        return _LEFT + plot_w * tokens / span

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="histogram" width="{_WIDTH}" '
        f'height="{_HEIGHT}" viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" '
        f'aria-label="{escape(f"token counts of {len(counts)} chunks", quote=True)}">',
        f'<line x1="{_LEFT}" y1="{base}" x2="{_WIDTH - _RIGHT}" y2="{base}" stroke="#444"/>',
        f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{base}" stroke="#444"/>',
    ]
    for item in table:
        if not item.count:
            continue
        height = plot_h * item.count / tallest
        label = f"{item.low}-{item.high - 1} tokens: {item.count} chunks"
        parts.append(
            f'<rect class="bar" x="{x(item.low) + 1:.1f}" y="{base - height:.1f}" '
            f'width="{max(1.0, x(item.high) - x(item.low) - 2):.1f}" height="{height:.1f}" '
            f'fill="#4a78b5"><title>{escape(label, quote=True)}</title></rect>'
        )
    if budget is not None:
        parts.append(
            f'<line class="budget" x1="{x(budget):.1f}" y1="{_TOP - 6}" x2="{x(budget):.1f}" '
            f'y2="{base}" stroke="#c0392b" stroke-dasharray="4 3"/>'
            f'<text x="{x(budget) - 4:.1f}" y="{_TOP - 4}" text-anchor="end" fill="#c0392b">'
            f"{escape(f'budget {budget}', quote=True)}</text>"
        )
    parts.extend(
        f'<text x="{x(tokens):.1f}" y="{base + 16}" text-anchor="middle">{tokens}</text>'
        for tokens in (0, span // 2, span)
    )
    parts.append(
        f'<text x="{_LEFT - 6}" y="{_TOP + 4}" text-anchor="end">{tallest}</text>'
        f'<text x="{_LEFT - 6}" y="{base}" text-anchor="end">0</text>'
        f'<text x="{_LEFT + plot_w / 2:.1f}" y="{_HEIGHT - 2}" text-anchor="middle">'
        "tokens per chunk (embedding text)</text></svg>"
    )
    return "".join(parts)
