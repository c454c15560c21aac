"""The package as installed: a wheel with the typing marker, and a standard-library-only import."""

from __future__ import annotations

import ast
import importlib.util
import tarfile
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path
from typing import Set

PROJECT = Path(__file__).resolve().parents[1]
SOURCES = PROJECT / "src" / "promptline"


# The build backend (backend/promptline_build.py) is standard library only: a wheel is built with
# nothing but pip, offline (--no-index), as `pip install ./sdk/python` builds it.
PIP_TIMEOUT_S = 300  # a few seconds on a quiet machine


def _files(root: Path) -> Set[str]:
    """Every file under ``root`` but bytecode caches (which importing the sources writes)."""
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if "__pycache__" not in p.parts}


def _python(*args: str, cwd: str) -> "subprocess.CompletedProcess[bytes]":
    # -I: this Python's own site-packages only, never a folder of the checkout or PYTHONPATH
    # (a leftover folder named like a module must not stand in for it).
    return subprocess.run([sys.executable, "-I", *args], cwd=cwd, capture_output=True, timeout=PIP_TIMEOUT_S)


class PackagingTest(unittest.TestCase):
    def test_the_wheel_carries_py_typed(self) -> None:
        """Built by pip offline from the checkout, which it leaves as it was, and importable once installed."""
        with tempfile.TemporaryDirectory() as out:
            if _python("-m", "pip", "--version", cwd=out).returncode != 0:
                self.skipTest(f"pip is not installed for {sys.executable} (python3 -m ensurepip, or apt-get install python3-pip): the wheel is not built here")
            before = _files(PROJECT)
            built = _python("-m", "pip", "wheel", "--no-deps", "--no-index", "--wheel-dir", out, str(PROJECT), cwd=out)
            self.assertEqual(built.returncode, 0, built.stderr.decode("utf-8", "replace")[-2000:])
            self.assertEqual(_files(PROJECT), before, "building the wheel wrote into sdk/python")
            (wheel,) = Path(out).glob("promptline-*.whl")
            with zipfile.ZipFile(wheel) as archive:
                names = archive.namelist()
                metadata = archive.read("promptline-0.1.0.dist-info/METADATA").decode("utf-8")
            # Installed from the wheel alone, it imports from where it was installed.
            site = str(Path(out) / "site")
            installed = _python("-m", "pip", "install", "--no-deps", "--no-index", "--target", site, str(wheel), cwd=out)
            self.assertEqual(installed.returncode, 0, installed.stderr.decode("utf-8", "replace")[-2000:])
            imported = _python("-c", f"import sys; sys.path.insert(0, {site!r}); import promptline; print(promptline.__file__)", cwd=out)
            self.assertEqual(imported.returncode, 0, imported.stderr.decode("utf-8", "replace")[-2000:])
            self.assertTrue(imported.stdout.decode("utf-8").strip().startswith(site), imported.stdout)
        self.assertIn("promptline/py.typed", names)
        self.assertIn("promptline/client.py", names)
        self.assertFalse([n for n in names if n.startswith("tests/") or "__pycache__" in n])
        self.assertIn("Name: promptline\nVersion: 0.1.0\n", metadata)
        self.assertIn("Requires-Python: >=3.9\n", metadata)

    def test_the_source_archive_and_the_editable_install(self) -> None:
        spec = importlib.util.spec_from_file_location("promptline_build", PROJECT / "backend" / "promptline_build.py")
        assert spec is not None and spec.loader is not None
        backend = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(backend)
        with tempfile.TemporaryDirectory() as out:
            with tarfile.open(Path(out) / backend.build_sdist(out)) as sdist:
                members = sdist.getnames()
            with zipfile.ZipFile(Path(out) / backend.build_editable(out)) as editable:
                pth = editable.read("_promptline_editable.pth").decode("utf-8")
        for name in ["PKG-INFO", "pyproject.toml", "backend/promptline_build.py", "src/promptline/py.typed", "src/promptline/client.py"]:
            self.assertIn(f"promptline-0.1.0/{name}", members)
        self.assertEqual(pth, str(PROJECT / "src") + "\n")

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
