"""Opening a Milvus connection: a Milvus Lite file or a server URI, and closing it cleanly.

Milvus Lite 3 runs in this process: pymilvus starts a gRPC server on 127.0.0.1 (a free
port, background threads) the first time a ``.db`` path is opened and keeps it until
the process exits. ``MilvusClient.close()`` does not stop it, so the file stays locked
and its data unflushed; this module counts the stores using each path and releases the
server when the last one closes, so a closed store leaves a file another process (or a
later store) can open. gRPC's proxy support is turned off for that loopback connection:
a user's ``http_proxy`` must never route local traffic to an outside host.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

from fastrag._optional import require
from fastrag.exceptions import ConfigurationError
from fastrag.ingestion.steps.storing.errors import StoreError

__all__ = ["Endpoint", "connect", "disconnect", "pymilvus", "scrub"]

_SERVER_SCHEMES: Final = ("http://", "https://", "tcp://", "unix:")
_lock = threading.Lock()
_lite_users: dict[str, int] = {}


def pymilvus() -> Any:
    """The ``pymilvus`` module, or an error naming ``fastrag-ai[milvus]``."""
    return require("pymilvus", extra="milvus", feature="MilvusStore")


class Endpoint:
    """Where the store lives: a Milvus Lite file (``*.db``) or a server URI.

    ``display`` is safe to print: a server URI loses any ``user:password@`` part.
    """

    __slots__ = ("display", "lite_path", "uri")

    def __init__(self, uri: str | Path) -> None:
        text = str(uri)
        if text.startswith(_SERVER_SCHEMES):
            self.uri = text
            self.lite_path: Path | None = None
            self.display = _redact(text)
            return
        path = Path(text).expanduser().resolve()
        if path.suffix != ".db":
            raise ConfigurationError(
                f"MilvusStore uri must be a Milvus Lite file ending in '.db' or a server URI "
                f"such as http://host:19530 (got {text!r}); e.g. ./fastrag.db"
            )
        self.uri = str(path)
        self.lite_path = path
        self.display = str(path)


def scrub(message: str, endpoint: Endpoint, token: str | None) -> str:
    """``message`` without the token or the URI's credentials (for errors and logs)."""
    if token:
        message = message.replace(token, "***")
    if endpoint.uri != endpoint.display:
        message = message.replace(endpoint.uri, endpoint.display)
    return message[:300]


def _redact(uri: str) -> str:
    parts = urlsplit(uri)
    if parts.username is None and parts.password is None:
        return uri
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def connect(endpoint: Endpoint, token: str | None, timeout: float | None) -> Any:
    """A ``MilvusClient`` for ``endpoint``; for Milvus Lite, counts this user of the file."""
    module = pymilvus()
    options: dict[str, Any] = {}
    if endpoint.lite_path is not None:
        if not endpoint.lite_path.parent.is_dir():
            raise StoreError(
                f"cannot create the Milvus Lite file {endpoint.display}: its folder does not "
                "exist; create it first"
            )
        options["grpc_options"] = {"grpc.enable_http_proxy": 0}
    try:
        client = module.MilvusClient(
            uri=endpoint.uri, token=token or "", timeout=timeout, **options
        )
    except Exception as error:  # noqa: BLE001 - any connection failure becomes a StoreError
        _release_lite(endpoint, started=True)
        hint = (
            "Milvus Lite serves one process per file: close the other process using it, or "
            "use a Milvus server URI"
            if endpoint.lite_path is not None
            else "check that the server is running and the URI and token are right"
        )
        reason = scrub(str(error), endpoint, token)
        raise StoreError(
            f"could not open Milvus at {endpoint.display} ({reason}); {hint}"
        ) from None
    if endpoint.lite_path is not None:
        with _lock:
            _lite_users[endpoint.uri] = _lite_users.get(endpoint.uri, 0) + 1
    return client


def disconnect(endpoint: Endpoint, client: Any) -> None:
    """Close ``client``; stop the Milvus Lite server when its last store closes."""
    try:
        client.close()
    finally:
        _release_lite(endpoint, started=False)


def _release_lite(endpoint: Endpoint, *, started: bool) -> None:
    if endpoint.lite_path is None:
        return
    with _lock:
        users = _lite_users.get(endpoint.uri, 0) - (0 if started else 1)
        if users > 0:
            _lite_users[endpoint.uri] = users
            return
        _lite_users.pop(endpoint.uri, None)
    manager = require("milvus_lite.server_manager", extra="milvus", feature="MilvusStore")
    manager.server_manager_instance.release_server(endpoint.uri)
