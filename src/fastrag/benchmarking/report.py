"""Present evaluation results: a side-by-side table, a JSON document, PNG plots.

Plots need matplotlib (``fastrag-ai[eval]``), imported only when plots are asked for and
drawn with the non-interactive Agg backend (no display is ever needed).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fastrag._optional import require
from fastrag.benchmarking.evaluate import ConfigResult, EvalSettings

__all__ = ["render_table", "results_document", "write_json", "write_plots"]

_COLUMNS = (
    ("recall", "Recall"),
    ("precision", "Precision"),
    ("iou", "IoU"),
    ("precision_omega", "Precision Ω"),
    ("hit", "Hit"),
    ("split", "Split"),
)


def _percent(result: ConfigResult, metric: str, *, std: bool = True) -> str:
    value = result.overall.get(metric)
    if value is None or math.isnan(value.mean):
        return "-"
    if not std:
        return f"{100 * value.mean:.1f}"
    return f"{100 * value.mean:.1f} ± {100 * value.std:.1f}"


def render_table(results: Sequence[ConfigResult], console: Any, *, per_corpus: bool = True) -> None:
    """Print configurations side by side (percentages, mean ± std), then per corpus."""
    table_module = require("rich.table", extra="cli", feature="the eval table")
    # Names are data, not markup: "[hybrid, ...]" would otherwise vanish as a style tag.
    escape = require("rich.markup", extra="cli", feature="the eval table").escape
    table = table_module.Table(title="Retrieval quality (%, mean ± std over questions)")
    table.add_column("Configuration", overflow="fold")
    for _, title in _COLUMNS:
        table.add_column(title, justify="right")
    table.add_column("Chunks", justify="right")
    table.add_column("Tokens indexed", justify="right")
    table.add_column("Retrieved tokens", justify="right")
    table.add_column("Truncated", justify="right")
    for result in results:
        cost = result.cost
        table.add_row(
            escape(result.label),
            *(_percent(result, metric) for metric, _ in _COLUMNS),
            str(cost["chunks"]),
            str(cost["tokens_indexed"]),
            f"{cost['retrieved_tokens']['mean']:.0f}",
            f"{100 * cost['truncated_fraction']:.1f}%",
        )
    console.print(table)
    if not per_corpus or not results:
        return
    corpora = sorted({corpus for result in results for corpus in result.per_corpus})
    detail = table_module.Table(title="Per corpus: recall / IoU (%)")
    detail.add_column("Configuration", overflow="fold")
    for corpus in corpora:
        detail.add_column(corpus, justify="right")
    for result in results:
        cells = []
        for corpus in corpora:
            metrics = result.per_corpus.get(corpus, {})
            recall, iou = metrics.get("recall"), metrics.get("iou")
            cells.append(
                "-"
                if recall is None or iou is None
                else f"{100 * recall.mean:.1f} / {100 * iou.mean:.1f}"
            )
        detail.add_row(escape(result.label), *cells)
    console.print(detail)


def results_document(
    results: Sequence[ConfigResult],
    settings: EvalSettings,
    *,
    dataset: str,
    model: str,
    notes: Sequence[str] = (),
) -> dict[str, Any]:
    """The JSON document ``--json`` writes (fractions in [0, 1], no document text)."""
    return {
        "dataset": dataset,
        "model": model,
        "protocol": {
            "name": settings.protocol,
            "k": settings.k,
            "token_budget": settings.token_budget,
            "spans": settings.spans,
        },
        "notes": list(notes),
        "results": [result.as_dict() for result in results],
    }


def write_json(document: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write ``document`` as indented JSON (parent folders created)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        json.dumps(document, indent=2, allow_nan=False, default=str) + "\n", encoding="utf-8"
    )


def write_plots(results: Sequence[ConfigResult], directory: str | os.PathLike[str]) -> list[Path]:
    """``quality_vs_cost.png`` and one ``tokens_<config>.png`` histogram per configuration."""
    matplotlib = require("matplotlib", extra="eval", feature="eval plots")
    matplotlib.use("Agg")
    pyplot = require("matplotlib.pyplot", extra="eval", feature="eval plots")
    ticker = require("matplotlib.ticker", extra="eval", feature="eval plots")
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    figure, axes = pyplot.subplots(1, 2, figsize=(12, 5))
    for axis, metric, label in ((axes[0], "recall", "Recall (%)"), (axes[1], "iou", "IoU (%)")):
        for result in results:
            x = result.cost["tokens_indexed"]
            y = 100 * result.overall[metric].mean
            axis.scatter([x], [y])
            axis.annotate(
                result.label, (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points"
            )
        axis.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v / 1000:.0f}k"))
        axis.set_xlabel("tokens indexed (cl100k)")
        axis.set_ylabel(label)
        axis.grid(alpha=0.3)
    figure.suptitle("Retrieval quality against index size")
    figure.tight_layout()
    path = folder / "quality_vs_cost.png"
    figure.savefig(path, dpi=110)
    pyplot.close(figure)
    written.append(path)
    for number, result in enumerate(results, 1):
        figure, axis = pyplot.subplots(figsize=(7, 4))
        for source_type, counts in sorted(result.chunk_tokens.items()):
            axis.hist(counts, bins=40, alpha=0.5, label=f"{source_type} ({len(counts)})")
        axis.set_xlabel("chunk tokens (cl100k)")
        axis.set_ylabel("chunks")
        axis.set_title(result.label, fontsize=9)
        axis.legend(fontsize=7)
        figure.tight_layout()
        path = folder / f"tokens_{number:02d}.png"
        figure.savefig(path, dpi=110)
        pyplot.close(figure)
        written.append(path)
    return written
