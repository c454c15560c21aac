"""The real Promptline server as a subprocess, for the integration tests.

Starts the built server (``dist/src/server.js``, from ``npm run build``) on a free port with its own
temporary data directory (SQLite) and a known admin key, waits for ``/healthz``, and stops it. The
built-in ``echo/echo`` model answers with the rendered prompt, so nothing leaves the machine.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from .limits import START_S

REPO_ROOT = Path(__file__).resolve().parents[4]
SERVER_JS = REPO_ROOT / "dist" / "src" / "server.js"
ADMIN_KEY = "pl_a_" + "py0sdk1test2key3abcdefghijklmnopqrstuvwx"


def server_available() -> Optional[str]:
    """None when the server can be started here, else why not (for skipTest)."""
    if shutil.which("node") is None:
        return "node is not on the PATH"
    if not SERVER_JS.exists():
        return f"{SERVER_JS} is missing: run `npm run build` first"
    return None


def unavailable(reason: str) -> BaseException:
    """What to raise when the server cannot run: a skip, or a failure where it is required.

    ``npm test`` builds the server before this suite and sets PROMPTLINE_SDK_TESTS_REQUIRE_SERVER,
    so a broken build fails these tests there instead of skipping them unnoticed.
    """
    if os.environ.get("PROMPTLINE_SDK_TESTS_REQUIRE_SERVER") == "1":
        return RuntimeError(f"the server tests cannot run: {reason}")
    return unittest.SkipTest(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """One server process; ``request`` talks to it directly (no client SDK) with the admin key or another."""

    def __init__(self, env: Optional[Dict[str, str]] = None) -> None:
        self._extra_env = env or {}
        self.port = 0
        self.url = ""
        self._process: Optional[subprocess.Popen[bytes]] = None
        self._data_dir = ""
        self._log: Any = None

    def start(self) -> "ServerProcess":
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._data_dir = tempfile.mkdtemp(prefix="promptline-py-")
        env = {
            **os.environ,
            "PROMPTLINE_DATA_DIR": self._data_dir,
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "LOG_LEVEL": "silent",
            "PROMPTLINE_BOOTSTRAP_ADMIN_KEY": ADMIN_KEY,
            **self._extra_env,
        }
        self._log = open(os.path.join(self._data_dir, "server.log"), "wb")
        self._process = subprocess.Popen(["node", str(SERVER_JS)], cwd=str(REPO_ROOT), env=env, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the server exited with {self._process.returncode}: {self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as answer:
                    if answer.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"waited {START_S:.0f} s for the server to answer /healthz: {self.log()}")

    def log(self) -> str:
        try:
            with open(os.path.join(self._data_dir, "server.log"), "rb") as f:
                return f.read().decode("utf-8", "replace")[-2000:]
        except OSError:
            return ""

    def stop(self) -> None:
        """Stops the process (SIGTERM, then SIGKILL after 10 s); the data directory stays until ``cleanup``."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        if self._log is not None:
            self._log.close()
            self._log = None

    def cleanup(self) -> None:
        self.stop()
        if self._data_dir:
            shutil.rmtree(self._data_dir, ignore_errors=True)
            self._data_dir = ""

    def request(self, method: str, path: str, body: Any = None, key: str = ADMIN_KEY, headers: Optional[Dict[str, str]] = None) -> Tuple[int, Any]:
        """One HTTP request straight to the server: (status, parsed JSON body or None)."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        all_headers = {"X-API-Key": key, **({"Content-Type": "application/json"} if data is not None else {}), **(headers or {})}
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=all_headers)
        try:
            with urllib.request.urlopen(req, timeout=30) as answer:
                raw = answer.read()
                return answer.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as error:
            raw = error.read()
            return error.code, json.loads(raw) if raw else None

    def ok(self, method: str, path: str, body: Any = None) -> Any:
        """A management call that must succeed (2xx); its JSON answer."""
        status, answer = self.request(method, path, body)
        if not 200 <= status < 300:
            raise AssertionError(f"{method} {path} answered {status}: {answer}")
        return answer
