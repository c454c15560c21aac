"""The build backend of the Python SDK (PEP 517 and PEP 660), standard library only.

Why not setuptools: it needs a download (PyPI) or a ``wheel`` package that a fresh machine may
lack, and it writes ``build/`` and ``*.egg-info`` into the folder it builds, so ``pip install
./sdk/python`` left build output in the checkout. This backend needs nothing but Python, writes
only the archive pip asks for, into the folder pip gives, and so builds offline
(``pip wheel --no-index``). The package is pure Python with no dependencies: its wheel is the
sources of ``src/promptline`` and the metadata below.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

PROJECT = Path(__file__).resolve().parents[1]
PACKAGE = "promptline"
NAME = "promptline"
VERSION = "0.1.0"
SUMMARY = "Python client for Promptline: serve LLM prompts and A/B-test prompt versions, answering in-process from the server's bundle"
REQUIRES_PYTHON = ">=3.9"
LICENSE = "UNLICENSED"
CLASSIFIERS = ["Programming Language :: Python :: 3", "Typing :: Typed"]
TAG = "py3-none-any"
DIST_INFO = f"{NAME}-{VERSION}.dist-info"
# Fixed dates inside the archives: the same sources build the same bytes.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def _metadata() -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {VERSION}",
        f"Summary: {SUMMARY}",
        f"License: {LICENSE}",
        f"Requires-Python: {REQUIRES_PYTHON}",
        *(f"Classifier: {c}" for c in CLASSIFIERS),
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(lines) + "\n\n" + (PROJECT / "README.md").read_text("utf-8")


def _package_files() -> List[Tuple[str, bytes]]:
    """(path in the wheel, content) of every file of the package, compiled caches left out."""
    root = PROJECT / "src" / PACKAGE
    files = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo"):
            files.append((path.relative_to(root.parent).as_posix(), path.read_bytes()))
    return files


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(directory: str, files: List[Tuple[str, bytes]]) -> str:
    """A wheel of ``files`` plus its .dist-info (METADATA, WHEEL, RECORD) in ``directory``; its file name."""
    files = files + [
        (f"{DIST_INFO}/METADATA", _metadata().encode("utf-8")),
        (f"{DIST_INFO}/WHEEL", f"Wheel-Version: 1.0\nGenerator: promptline_build\nRoot-Is-Purelib: true\nTag: {TAG}\n".encode("utf-8")),
    ]
    record = "".join(_record_line(name, data) + "\n" for name, data in files) + f"{DIST_INFO}/RECORD,,\n"
    filename = f"{NAME}-{VERSION}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files + [(f"{DIST_INFO}/RECORD", record.encode("utf-8"))]:
            entry = zipfile.ZipInfo(name, ZIP_DATE)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, data)
    return filename


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, object]] = None, metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, object]] = None, metadata_directory: Optional[str] = None) -> str:
    """``pip install -e``: a wheel whose .pth file puts this checkout's ``src`` on sys.path."""
    return _write_wheel(wheel_directory, [(f"_{NAME}_editable.pth", (str(PROJECT / "src") + "\n").encode("utf-8"))])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, object]] = None) -> str:
    """The sources a wheel is built from, with PKG-INFO, as ``promptline-0.1.0.tar.gz``."""
    base = f"{NAME}-{VERSION}"
    members = [("PKG-INFO", _metadata().encode("utf-8"))]
    for relative in ["pyproject.toml", "README.md", "backend/promptline_build.py"]:
        members.append((relative, (PROJECT / relative).read_bytes()))
    members += [(f"src/{name}", data) for name, data in _package_files()]
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        for name, data in members:
            entry = tarfile.TarInfo(f"{base}/{name}")
            entry.size, entry.mode, entry.mtime = len(data), 0o644, 0
            sdist.addfile(entry, io.BytesIO(data))
    return filename
