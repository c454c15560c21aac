"""Runs cases through the built server's own code (tests/support/oracle.mjs) and returns its answers."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional

from .server import REPO_ROOT

ORACLE = Path(__file__).with_name("oracle.mjs")
DIST = REPO_ROOT / "dist"


def oracle_available() -> Optional[str]:
    """None when the oracle can run here, else why not (for skipTest)."""
    if shutil.which("node") is None:
        return "node is not on the PATH"
    if not (DIST / "src" / "modules" / "prompts" / "template.js").exists():
        return f"{DIST} has no build: run `npm run build` first"
    return None


def ask(cases: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The server code's answer to each case, in order."""
    done = subprocess.run(["node", str(ORACLE), str(DIST)], input=json.dumps(cases).encode("utf-8"), capture_output=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"oracle failed: {done.stderr.decode('utf-8', 'replace')[-2000:]}")
    answers: List[Dict[str, Any]] = json.loads(done.stdout)
    return answers
