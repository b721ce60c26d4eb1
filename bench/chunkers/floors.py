"""Physical floors per format, interleaved in one process.

usage: python floors.py [--runs 7] [--out results/floors.jsonl] [FMT ...]

  read        read + UTF-8 decode every file (page cache warm)
  tok         tiktoken cl100k_base encode_ordinary, one document at a time, one thread
  tok_batch   encode_ordinary_batch over all documents (tiktoken's thread pool, default 8 threads)
  mdit        markdown-it-py MarkdownIt("commonmark").enable("table").parse   (md only)
  lxml        lxml.html.document_fromstring                                    (html only, extra)
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import time

from common import (
    FORMATS,
    get_enc,
    list_files,
    load_texts,
    median,
    nbytes,
    peak_rss_mb,
    timed,
)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fmts", nargs="*", default=list(FORMATS))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    enc = get_enc()
    for fmt in a.fmts:
        files = list_files(fmt)
        texts = load_texts(fmt)
        size = nbytes(texts)
        ops = {
            "read": lambda files=files: [p.read_bytes().decode("utf-8") for p in files],
            "tok": lambda texts=texts: [len(enc.encode_ordinary(t)) for t in texts],
            "tok_batch": lambda texts=texts: [len(x) for x in enc.encode_ordinary_batch(texts)],
        }
        if fmt == "md":
            from markdown_it import MarkdownIt
            md = MarkdownIt("commonmark").enable("table")
            ops["mdit"] = lambda md=md, texts=texts: [len(md.parse(t)) for t in texts]
        if fmt == "html":
            import lxml.html
            ops["lxml"] = lambda texts=texts: [
                len(lxml.html.document_fromstring(t)) for t in texts]
        times = {k: [] for k in ops}
        for f in ops.values():  # warm-up
            f()
        for _ in range(a.runs):
            for k, f in ops.items():
                w, c, _r = timed(f)
                times[k].append((w, c))
                gc.collect()
        tokens = sum(len(enc.encode_ordinary(t)) for t in texts)
        res = {"fmt": fmt, "files": len(texts), "bytes": size, "tokens": tokens, "ops": {}}
        for k, ts in times.items():
            mw = median([w for w, _ in ts])
            res["ops"][k] = {
                "median_wall": mw, "median_cpu": median([c for _, c in ts]),
                "mb_per_s": size / 1e6 / mw,
                "ratio_to_tok": median(
                    [w / t for (w, _), (t, _) in zip(ts, times["tok"], strict=True)]),
                "walls": [round(w, 4) for w, _ in ts],
            }
        res["peak_rss_mb"] = round(peak_rss_mb(), 1)
        res["when"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        line = json.dumps(res)
        print(line, flush=True)
        if a.out:
            os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
            with open(a.out, "a") as f:
                f.write(line + "\n")


if __name__ == "__main__":
    main()
