"""The ZIP checks every Office file passes before a library opens it (zip bombs and junk).

DOCX, PPTX and XLSX are ZIP packages, and the libraries that read them inflate whatever
the package holds. A few hundred kilobytes can declare gigabytes of XML, so the central
directory is inspected first with ``zipfile``: the member count, the total declared
size and each large member's compression ratio are capped. The declared sizes can be
trusted as upper bounds because ``zipfile`` itself never inflates a member past its
declared ``file_size`` (it stops there and the CRC check then fails), and python-docx,
python-pptx and openpyxl all read through ``zipfile``.

A password-protected Office file is not a ZIP at all but an OLE compound file holding an
``EncryptedPackage`` stream; it is recognised so the error can say what it is.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from typing import Final

from fastrag.exceptions import ConfigurationError, EncryptedDocumentError, ParsingError

__all__ = ["DEFAULT_ZIP_LIMITS", "ZipLimits", "check_package"]

_OLE_MAGIC: Final = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED_STREAM: Final = "EncryptedPackage".encode("utf-16-le")
_RATIO_FLOOR_BYTES: Final = 1 << 20
"""Members smaller than this are never refused for their ratio: they cannot hurt."""


@dataclass(frozen=True, slots=True)
class ZipLimits:
    """Caps on what an Office package may declare before any member is inflated."""

    max_uncompressed_bytes: int = 500 * 1024 * 1024
    """Total declared size of all members (default 500 MiB)."""
    max_members: int = 10_000
    """Number of members (a 1,000-slide deck has about 3,000)."""
    max_compression_ratio: float = 200.0
    """Declared/compressed size of any member of 1 MiB or more (Office XML is ~5-25x)."""

    def __post_init__(self) -> None:
        for name in ("max_uncompressed_bytes", "max_members"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ConfigurationError(f"'{name}' must be an int > 0 (got {value!r:.40})")
        ratio = self.max_compression_ratio
        if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not ratio >= 1:
            raise ConfigurationError(
                f"'max_compression_ratio' must be a number >= 1 (got {ratio!r:.40})"
            )


DEFAULT_ZIP_LIMITS: Final = ZipLimits()


def check_package(data: bytes, name: str, kind: str, limits: ZipLimits) -> None:
    """Refuse ``data`` unless it is a readable ZIP within ``limits``.

    Raises ``EncryptedDocumentError`` for a password-protected Office file and
    ``ParsingError`` for anything else, each naming the file ``name`` (a ``kind`` such as
    ``"DOCX"``), the value found and what to do.
    """
    if data.startswith(_OLE_MAGIC):
        if _ENCRYPTED_STREAM in data:
            raise EncryptedDocumentError(
                f"{name}: is a password-protected {kind} file; fastrag cannot decrypt Office "
                "files: save an unprotected copy and ingest that, or exclude it"
            )
        raise ParsingError(
            f"{name}: is a legacy binary Office file (OLE), not a {kind} package; convert it "
            f"to {kind} (e.g. libreoffice --convert-to) or exclude it"
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            members = package.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as error:
        raise ParsingError(
            f"{name}: is not a readable {kind} package (corrupt or truncated ZIP: "
            f"{type(error).__name__}); re-save it from its application or exclude it"
        ) from error
    if len(members) > limits.max_members:
        raise ParsingError(
            f"{name}: {kind} package has {len(members)} members, over the cap of "
            f"{limits.max_members}; raise max_members if the file is genuine"
        )
    total = sum(member.file_size for member in members)
    if total > limits.max_uncompressed_bytes:
        raise ParsingError(
            f"{name}: {kind} package declares {total} uncompressed bytes, over the cap of "
            f"{limits.max_uncompressed_bytes}; raise max_uncompressed_bytes if it is genuine"
        )
    for member in members:
        if member.file_size < _RATIO_FLOOR_BYTES:
            continue
        ratio = member.file_size / max(member.compress_size, 1)
        if ratio > limits.max_compression_ratio:
            raise ParsingError(
                f"{name}: {kind} package member {member.filename!r:.80} inflates "
                f"{ratio:.0f}x ({member.file_size} bytes), over the cap of "
                f"{limits.max_compression_ratio:g}x: a zip bomb? Raise "
                "max_compression_ratio if the file is genuine"
            )
