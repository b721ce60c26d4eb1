"""Run Chroma's dataset through ``fastrag.benchmarking`` (by hand; minutes per config).

    .venv/bin/python bench/eval_chroma.py OUT.json [--cache PATH] [--protocol k|tokens]
        [--config FILE ...] [--reproduce] [--grid key=v1,v2 ...] [--grid-chunker KIND]
        [--paired-baseline NAME] [--retrieval dense|bm25|hybrid] [--bm25-over chunk|window]
        [--embed chunk|window|fuse|fuse_sentences] [--dedupe] [--window-tokens N]

Retrieval settings apply to configurations without a ``retrieval`` table of their own
(see ``fastrag.benchmarking.retrieval``); docs/benchmarking.md shows the file that
measured its retrieval rows.

``bench/eval_model_assisted.toml`` holds the model-assisted rows of docs/benchmarking.md
(start the local chat stand-in first; see that file).

Prints one line per configuration and writes the full JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from functools import cache
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from fastrag.benchmarking._embedding import (
    CachedEmbedder,
    EmbeddingCache,
    SentenceTransformerEmbedder,
    default_model_dir,
)
from fastrag.benchmarking.chroma import load_chroma
from fastrag.benchmarking.configs import (
    KINDS,
    expand_grid,
    load_configs,
    parse_grid,
    reproduction_configs,
)
from fastrag.benchmarking.evaluate import ConfigResult, EvalSettings, evaluate
from fastrag.benchmarking.retrieval_settings import RetrievalSettings
from fastrag.tokenization import HuggingFaceTokenizer


def _with_questions(result: ConfigResult) -> dict[str, Any]:
    """The summary plus per-question recall and IoU, in question order (paired comparisons)."""
    return {
        **result.as_dict(),
        "per_question": {
            "recall": [round(score.recall, 6) for score in result.scores],
            "iou": [round(score.iou, 6) for score in result.scores],
        },
    }


def _interval(result: ConfigResult) -> str:
    """95 % bootstrap intervals of mean recall and IoU (questions resampled, fixed seed)."""
    import numpy as np

    recall = np.array([score.recall for score in result.scores])
    iou = np.array([score.iou for score in result.scores])
    draws = np.random.default_rng(0).integers(0, len(recall), (2000, len(recall)))
    low_r, high_r = np.percentile(100 * recall[draws].mean(axis=1), [2.5, 97.5])
    low_i, high_i = np.percentile(100 * iou[draws].mean(axis=1), [2.5, 97.5])
    # Issue 7's target (recall >= 85 and IoU >= 7.5 at once), per resample.
    both = ((recall[draws].mean(axis=1) >= 0.85) & (iou[draws].mean(axis=1) >= 0.075)).mean()
    return (
        f"R95 [{low_r:.1f}, {high_r:.1f}]  IoU95 [{low_i:.2f}, {high_i:.2f}]"
        f"  target met in {100 * both:.0f}% of resamples"
    )


def _paired(baseline: ConfigResult, other: ConfigResult, metric: str) -> str:
    """Mean per-question difference with a 95 % bootstrap interval, and wins/losses."""
    import numpy as np

    before = np.array([getattr(score, metric) for score in baseline.scores])
    after = np.array([getattr(score, metric) for score in other.scores])
    delta = after - before
    rng = np.random.default_rng(0)
    means = delta[rng.integers(0, len(delta), (2000, len(delta)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return (
        f"{metric} {100 * delta.mean():+.2f} [{100 * low:+.2f}, {100 * high:+.2f}]"
        f" better {int((delta > 1e-9).sum())} worse {int((delta < -1e-9).sum())}"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("output", type=Path)
    parser.add_argument("--cache", type=Path, default=Path("out/eval-embeddings.sqlite"))
    parser.add_argument("--protocol", choices=("k", "tokens"), default="k")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--token-budget", type=int, default=1000)
    parser.add_argument("--spans", choices=("first", "exact"), default="first")
    parser.add_argument("--config", action="append", default=[], type=Path)
    parser.add_argument("--grid", action="append", default=[])
    parser.add_argument("--grid-chunker", choices=KINDS, default="structure")
    parser.add_argument("--reproduce", action="store_true")
    parser.add_argument(
        "--paired-baseline",
        default=None,
        metavar="NAME",
        help="also print each configuration's per-question differences from this one",
    )
    parser.add_argument("--retrieval", choices=("dense", "bm25", "hybrid"), default="dense")
    parser.add_argument("--bm25-over", choices=("chunk", "window"), default="chunk")
    parser.add_argument(
        "--embed", choices=("chunk", "window", "fuse", "fuse_sentences"), default="chunk"
    )
    parser.add_argument("--dedupe", action="store_true")
    parser.add_argument("--window-tokens", type=int, default=None)
    arguments = parser.parse_args()
    configs = [c for path in arguments.config for c in load_configs(path)]
    if arguments.grid:
        configs += expand_grid(parse_grid(arguments.grid), kind=arguments.grid_chunker)
    if arguments.reproduce:
        configs = reproduction_configs() + configs
    corpus = load_chroma()
    model = SentenceTransformerEmbedder(default_model_dir())
    embedder = CachedEmbedder(model, EmbeddingCache(arguments.cache))

    @cache
    def tokenizer() -> HuggingFaceTokenizer:
        return HuggingFaceTokenizer(model.tokenizer_file)

    started = time.time()

    def progress(message: str) -> None:
        print(f"[{time.time() - started:7.1f}s] {message}", file=sys.stderr, flush=True)

    settings = EvalSettings(
        protocol=arguments.protocol,
        k=arguments.k,
        token_budget=arguments.token_budget,
        spans=arguments.spans,
        retrieval=RetrievalSettings(
            arguments.retrieval,
            arguments.bm25_over,
            arguments.embed,
            arguments.dedupe,
            arguments.window_tokens,
        ),
    )
    arguments.output.parent.mkdir(parents=True, exist_ok=True)
    results = []
    for config in configs:  # one at a time: each line and the JSON so far survive a stop
        (result,) = evaluate(
            corpus, [config], embedder, settings=settings, model_tokenizer=tokenizer,
            progress=progress, model_tokenizer_file=model.tokenizer_file,
        )  # fmt: skip
        results.append(result)
        o = result.overall
        print(
            f"{result.label:55s} recall {100 * o['recall'].mean:5.1f}"
            f" ± {100 * o['recall'].std:4.1f}"
            f"  IoU {100 * o['iou'].mean:4.2f} ± {100 * o['iou'].std:4.2f}"
            f"  prec {100 * o['precision'].mean:4.2f}  Ω {100 * o['precision_omega'].mean:5.2f}"
            f"  chunks {result.cost['chunks']}  trunc {result.cost['truncated_fraction']:.2f}"
            f"  tok/q {result.cost['retrieved_tokens']['mean']:.0f}"
            f"  skip/q {result.cost['dedupe_skipped_per_question']:.2f}  {_interval(result)}",
            flush=True,
        )
        notes = {
            key: result.cost[key] for key in ("refinement", "window_fitting") if key in result.cost
        }
        if notes:
            print(f"{'':55s} {json.dumps(notes)}", flush=True)
        arguments.output.write_text(
            json.dumps([_with_questions(result) for result in results], indent=2),
            encoding="utf-8",
        )
    baseline = next((r for r in results if r.config.name == arguments.paired_baseline), None)
    for result in results:
        if baseline is not None and result is not baseline:
            print(f"{result.config.name:55s} vs {baseline.config.name}:", flush=True)
            print(f"    {_paired(baseline, result, 'recall')}", flush=True)
            print(f"    {_paired(baseline, result, 'iou')}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
