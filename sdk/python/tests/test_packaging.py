"""The package as installed: a wheel with the typing marker, and a standard-library-only import."""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path
from typing import Set

PROJECT = Path(__file__).resolve().parents[1]
SOURCES = PROJECT / "src" / "promptline"


def _can_build_here() -> bool:
    """True when this Python can build the wheel without downloading anything (setuptools >= 61 with bdist_wheel)."""
    try:
        installed = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        return False
    version = tuple(int(part) for part in installed.split(".")[:2] if part.isdigit())
    return version >= (70, 1) or (version >= (61, 0) and importlib.util.find_spec("wheel") is not None)


class PackagingTest(unittest.TestCase):
    def test_the_wheel_carries_py_typed(self) -> None:
        if importlib.util.find_spec("build") is None:
            self.skipTest("the `build` front end is not installed (pip install build): the wheel is not built here")
        isolation = ["--no-isolation"] if _can_build_here() else []  # else `build` downloads setuptools
        with tempfile.TemporaryDirectory() as out:
            # From a copy: setuptools writes build/ and *.egg-info beside the sources it builds.
            copy = Path(out) / "project"
            shutil.copytree(PROJECT, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests"))
            done = subprocess.run([sys.executable, "-m", "build", "--wheel", *isolation, "--outdir", out, str(copy)], capture_output=True, timeout=300)
            self.assertEqual(done.returncode, 0, done.stderr.decode("utf-8", "replace")[-2000:])
            (wheel,) = Path(out).glob("promptline-*.whl")
            names = zipfile.ZipFile(wheel).namelist()
        self.assertIn("promptline/py.typed", names)
        self.assertIn("promptline/client.py", names)
        self.assertFalse([n for n in names if n.startswith("tests/")])

    def test_only_the_standard_library_is_imported(self) -> None:
        stdlib = getattr(sys, "stdlib_module_names", None)
        if stdlib is None:
            self.skipTest("sys.stdlib_module_names needs Python 3.10")
        imported: Set[str] = set()
        for path in SOURCES.glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.Import):
                    imported.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    imported.add(node.module.split(".")[0])
        self.assertIn("urllib", imported)  # the scan sees imports at all
        self.assertEqual({m for m in imported if m not in stdlib and m != "__future__"}, set())
        self.assertTrue((SOURCES / "py.typed").exists())


if __name__ == "__main__":
    unittest.main()
