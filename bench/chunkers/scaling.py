"""Scaling: one large Markdown document (the md corpus concatenated, repeated as needed,
cut at a line end near the target size), chunked as ONE text by each library.

usage: python scaling.py [--sizes 1,10,50] [--libs a,b] [--timeout 300]
                         [--out results/scaling.jsonl]

Each (library, size) runs in a child process (killed past --timeout seconds or past
--max-rss-gb of resident memory).  In the child: library run, then one tiktoken
encode_ordinary pass over the same document (the floor), plus markdown-it-py for "floor".
1 MB gets 3 library runs (median), larger sizes one.  A library that times out at one
size is not run at the larger sizes.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time

from common import (
    BUDGET,
    current_rss_mb,
    get_enc,
    hwm_rss_mb,
    load_texts,
    median,
    peak_rss_mb,
    reset_peak_rss,
    timed,
)

LIBS = ["floor", "chonkie-token", "chonkie-recursive", "semchunk", "semchunk-nomemo", "sts",
        "langchain", "llamaindex", "fastrag"]


def big_doc(mb: int) -> str:
    target = mb * 1_000_000
    texts = load_texts("md")
    parts, size, i = [], 0, 0
    while size < target:
        t = texts[i % len(texts)]
        parts.append(t if t.endswith("\n") else t + "\n")
        parts.append("\n")
        size += len(parts[-2].encode()) + 1
        i += 1
    doc = "".join(parts)
    b = doc.encode()[:target]
    cut = b.rfind(b"\n") + 1
    return b[:cut].decode("utf-8")


def child(lib: str, mb: int) -> None:
    enc = get_enc()
    doc = big_doc(mb)
    size = len(doc.encode())
    res = {"lib": lib, "mb": mb, "bytes": size}
    reps = 3 if mb <= 1 else 1
    if lib == "floor":
        from markdown_it import MarkdownIt
        md = MarkdownIt("commonmark").enable("table")
        res["tok_walls"] = [timed(lambda: len(enc.encode_ordinary(doc)))[0] for _ in range(reps)]
        res["mdit_walls"] = [timed(lambda: len(md.parse(doc)))[0] for _ in range(reps)]
        res["wall"] = median(res["tok_walls"])
    else:
        import chunkers
        cell = chunkers.make(lib, "md", enc)
        walls, cpus = [], []
        # Imports and one-time initialisation must not count as the run's memory: warm up
        # on a small prefix first (added for the memory/input figure).
        cell.setup()
        cell.run([doc[: doc.find("\n", 20_000) + 1]])
        gc.collect()
        res["rss_before_mb"] = round(current_rss_mb(), 1)
        res["hwm_reset"] = reset_peak_rss()
        for i in range(reps):
            cell.setup()
            w, c, out = timed(cell.run, [doc])
            walls.append(w)
            cpus.append(c)
            if i == 0:
                # Peak of the first run (input alive, output retained), before any checks.
                res["run_peak_rss_mb"] = round(hwm_rss_mb(), 1)
                res["run_mem_over_input"] = round(
                    (res["run_peak_rss_mb"] - res["rss_before_mb"]) * 2**20 / size, 2)
                if hasattr(cell, "quality"):  # fastrag: budget on the embedded text
                    q = cell.quality(out, [doc])
                    res["over_budget_content"] = q["over_budget_content"]
                    res["offsets_exact"] = f"{q['offsets_exact']}/{q['chunks_with_offsets']}"
                recs = cell.records(out, [doc])[0]
                res["chunks"] = len(recs)
                toks = [len(enc.encode_ordinary(r[0])) for r in recs]
                res["over_budget"] = sum(k > BUDGET for k in toks)
                res["max_tokens"] = max(toks, default=0)
                if hasattr(cell, "quality"):
                    res["over_budget"], res["max_tokens"] = q["over_budget"], q["max_tokens"]
                del recs, toks
            del out
            gc.collect()
        res["walls"] = walls
        res["cpus"] = cpus
        res["wall"] = median(walls)
        res["cpu"] = median(cpus)
        _fw, fc, _n = timed(lambda: len(enc.encode_ordinary(doc)))
        res["floor_wall"] = _fw
        res["floor_cpu"] = fc
        res["ratio_to_tok"] = res["wall"] / res["floor_wall"]
        res["ratio_cpu"] = res["cpu"] / fc
        res["cpu_s_per_mb"] = res["cpu"] / (size / 1e6)
    res["s_per_mb"] = res["wall"] / (size / 1e6)
    res["peak_rss_mb"] = round(peak_rss_mb(), 1)
    print(json.dumps(res), flush=True)


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return 0.0


def parent(a) -> None:
    sizes = [int(s) for s in a.sizes.split(",")]
    libs = a.libs.split(",") if a.libs else LIBS
    for lib in libs:
        for mb in sizes:
            t0 = time.time()
            p = subprocess.Popen([sys.executable, __file__, "--child", lib, str(mb)],
                                 stdout=subprocess.PIPE, text=True)
            status, peak = "ok", 0.0
            while p.poll() is None:
                time.sleep(0.5)
                peak = max(peak, rss_mb(p.pid))
                if time.time() - t0 > a.timeout:
                    status = "timeout"
                elif peak > a.max_rss_gb * 1024:
                    status = "rss-limit"
                else:
                    continue
                p.kill()
                p.wait()
                break
            out = p.stdout.read().strip().splitlines()
            if status == "ok" and p.returncode == 0 and out:
                res = json.loads(out[-1])
            else:
                if status == "ok":
                    status = f"exit {p.returncode}"
                res = {"lib": lib, "mb": mb, "status": status,
                       "elapsed_s": round(time.time() - t0, 1), "peak_rss_mb": round(peak, 1)}
            res.setdefault("status", "ok")
            line = json.dumps(res)
            print(line, flush=True)
            if a.out:
                os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
                with open(a.out, "a") as f:
                    f.write(line + "\n")
            if res["status"] != "ok":
                break  # larger sizes would only take longer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", nargs=2, metavar=("LIB", "MB"))
    ap.add_argument("--sizes", default="1,10,50")
    ap.add_argument("--libs", default="")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--max-rss-gb", type=float, default=8)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    if a.child:
        child(a.child[0], int(a.child[1]))
    else:
        parent(a)


if __name__ == "__main__":
    main()
