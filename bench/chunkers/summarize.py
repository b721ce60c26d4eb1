"""Turn results/*.jsonl into Markdown tables (stdout).

Copied from the shared anchor harness (/work/shared/bench-anchors/summarize.py) and
extended for fastrag: the headline table reports the CPU-time ratio (the issue's
measure), a contract table shows the fastrag cell's own checks (budget on the embedded
text and on bare content, serialization-map offset exactness), and the scaling table
adds CPU s/MB, the 50-vs-1 MB per-MB ratio and the run's memory over the input size.

usage: python summarize.py [RESULTS_DIR]   (default: results next to this file)
The last line written for a (lib, fmt) / (lib, mb) wins.
"""
from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

FMTS = ["md", "html", "rst", "txt"]


def load(path):
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def floors_table(floors):
    print("### Floors (median wall; ratio = op / tiktoken single-thread, pairwise median)\n")
    print("| fmt | files | MB | tokens | read MB/s | tok MB/s | tok_batch MB/s (x tok) "
          "| markdown-it MB/s (x tok) | lxml MB/s (x tok) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for f in FMTS:
        if f not in floors:
            continue
        r = floors[f]
        o = r["ops"]

        def cell(k, o=o):
            if k not in o:
                return "-"
            return f"{o[k]['mb_per_s']:.1f} ({o[k]['ratio_to_tok']:.2f})"
        print(f"| {f} | {r['files']} | {r['bytes'] / 1e6:.2f} | {r['tokens']:,} | "
              f"{o['read']['mb_per_s']:.0f} | {o['tok']['mb_per_s']:.2f} | {cell('tok_batch')} | "
              f"{cell('mdit')} | {cell('lxml')} |")
    print()


def cells_tables(cells):
    libs = []
    for (lib, _f) in cells:
        if lib not in libs:
            libs.append(lib)
    print("### CPU time as a ratio to the tiktoken floor of the same run (wall ratio), MB/s\n")
    print("| library | " + " | ".join(f"{f} x floor | {f} MB/s" for f in FMTS) + " |")
    print("|---|" + "---|---|" * len(FMTS))
    for lib in libs:
        row = [lib]
        for f in FMTS:
            r = cells.get((lib, f))
            if r is None or "mb_per_s" not in r:
                row += ["-", "-"]
            else:
                row += [f"**{r['ratio_cpu']:.2f}** ({r['ratio_wall']:.2f})", f"{r['mb_per_s']:.2f}"]
        print("| " + " | ".join(row) + " |")
    print()
    print("### Output checks (warm-up run) and memory\n")
    print("| library | fmt | runs | chunks | >512 tok | max tok | mean tok | offsets returned "
          "| offsets exact | heading path | chars out/in | RSS before -> peak MB | note |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for lib in libs:
        for f in FMTS:
            r = cells.get((lib, f))
            if r is None:
                continue
            q = r.get("quality") or {}
            if not q:
                continue
            with_off = q["chunks_with_offsets"]
            offs = f"{q['offsets_exact']}/{with_off}" if with_off else "-"
            heads = "no"
            if q["chunks_with_heading"]:
                heads = f"{q['chunks_with_heading']}/{q['chunks']}"
            print(f"| {lib} | {f} | {len(r['runs'])} | {q['chunks']} | {q['over_budget']} | "
                  f"{q['max_tokens']} | {q['mean_tokens']} | {r['offsets']} | {offs} | {heads} | "
                  f"{q['chars_out_over_in']} | {r['rss_before_mb']:.0f} -> "
                  f"{r['peak_rss_mb']:.0f} | {r.get('note', '')} |")
    print()
    own = [(lib, f) for lib in libs for f in FMTS
           if "offsets_exact_naive" in ((cells.get((lib, f)) or {}).get("quality") or {})]
    if not own:
        return
    print("### fastrag contract checks (warm-up run)\n")
    print("Budget on `build_embedding_text(content, metadata)` (what is embedded) and on bare "
          "`content`; offsets exact = every verbatim run of the serialization map equals its "
          "source slice and lies in [char_start, char_end); naive = "
          "`content == source[char_start:char_end]`.\n")
    print("| cell | fmt | chunks | >512 embedded | max embedded | >512 content | max content "
          "| embedding_token_count wrong | overflow / atomic loss | offsets exact (map) "
          "| naive exact | rendered chars |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for lib, f in own:
        q = cells[(lib, f)]["quality"]
        n = q["chunks_with_offsets"]
        shown = q["chars_rendered"] + q["chars_verbatim"]
        print(f"| {lib} | {f} | {q['chunks']} | {q['over_budget']} | {q['max_tokens']} | "
              f"{q['over_budget_content']} | {q['max_tokens_content']} | {q['count_mismatch']} | "
              f"{q['overflow_flagged']} / {q['atomic_loss']} | {q['offsets_exact']}/{n} | "
              f"{q['offsets_exact_naive']}/{n} | "
              f"{100 * q['chars_rendered'] / max(1, shown):.1f} % |")
    print()


def scaling_table(scaling):
    print("### Scaling: one Markdown document of 1 / 10 / 50 MB\n")
    sizes = sorted({mb for (_l, mb) in scaling})
    slibs = []
    for (lib, _m) in scaling:
        if lib not in slibs:
            slibs.append(lib)
    print("| library | " + " | ".join(f"{m} MB: wall s (CPU s/MB, CPU x tok; chunks, >512)"
                                      for m in sizes)
          + " | CPU/MB 50 vs 1 | exponent 1->10 | exponent 10->50 | run memory / input |")
    print("|---|" + "---|" * len(sizes) + "---|---|---|---|")
    for lib in slibs:
        row = [lib]
        for m in sizes:
            r = scaling.get((lib, m))
            if r is None:
                row.append("not run")
            elif r.get("status") != "ok":
                row.append(f"{r['status']} ({r.get('elapsed_s')} s)")
            else:
                per_mb = r.get("cpu_s_per_mb", r["s_per_mb"])
                x = r.get("ratio_cpu", r.get("ratio_to_tok"))
                xs = f", x{x:.1f}" if x is not None else ""
                ch = f"; {r['chunks']} ch" if "chunks" in r else ""
                ov = f", {r['over_budget']} >512" if "over_budget" in r else ""
                row.append(f"{r['wall']:.2f} ({per_mb:.3f}{xs}{ch}{ov})")

        def ok(r):
            return r is not None and r.get("status") == "ok"

        def expo(m1, m2, lib=lib):
            a, b = scaling.get((lib, m1)), scaling.get((lib, m2))
            if not ok(a) or not ok(b):
                return "-"
            return f"{math.log(b['wall'] / a['wall']) / math.log(b['bytes'] / a['bytes']):.2f}"
        a, b = scaling.get((lib, min(sizes))), scaling.get((lib, max(sizes)))
        per_mb = "-"
        if ok(a) and ok(b) and "cpu_s_per_mb" in a and "cpu_s_per_mb" in b:
            per_mb = f"{b['cpu_s_per_mb'] / a['cpu_s_per_mb']:.2f}"
        mems = [f"{scaling[(lib, m)]['run_mem_over_input']:.1f}" for m in sizes
                if ok(scaling.get((lib, m))) and "run_mem_over_input" in scaling[(lib, m)]]
        row += [per_mb, expo(1, 10), expo(10, 50), " / ".join(mems) or "-"]
        print("| " + " | ".join(row) + " |")
    print()


def main():
    here = Path(os.path.dirname(os.path.abspath(__file__)))
    rd = Path(sys.argv[1]) if len(sys.argv) > 1 else here / "results"
    floors = {r["fmt"]: r for r in load(rd / "floors.jsonl")}
    cells = {}
    for r in load(rd / "cells.jsonl"):
        cells[(r["lib"], r["fmt"])] = r
    scaling = {}
    for r in load(rd / "scaling.jsonl"):
        scaling[(r["lib"], r["mb"])] = r
        if r["lib"] == "floor" and r.get("mdit_walls"):
            w = sorted(r["mdit_walls"])[len(r["mdit_walls"]) // 2]
            scaling[("markdown-it-py parse", r["mb"])] = {
                "lib": "markdown-it-py parse", "mb": r["mb"], "bytes": r["bytes"], "status": "ok",
                "wall": w, "s_per_mb": w / (r["bytes"] / 1e6), "ratio_to_tok": w / r["wall"]}
    if floors:
        floors_table(floors)
    if cells:
        cells_tables(cells)
    if scaling:
        scaling_table(scaling)


if __name__ == "__main__":
    main()
