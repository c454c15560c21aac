"""A scripted HTTP server for unit tests of the client's HTTP behaviour (retries, keys, bodies).

Each request is recorded; the answer is the next scripted one for its path (``script``), else the
path's default (``default``), else a 404.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple, Union


@dataclass
class Seen:
    method: str
    path: str
    headers: Dict[str, str]
    body: Any


#: (status, JSON body or None, extra headers), or a callable making one from the request.
Reply = Union[Tuple[int, Any, Dict[str, str]], Callable[[Seen], Tuple[int, Any, Dict[str, str]]]]


class FakeServer:
    def __init__(self) -> None:
        self.seen: List[Seen] = []
        self._scripts: Dict[str, List[Reply]] = {}
        self._defaults: Dict[str, Reply] = {}
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(raw) if raw else None)
                status, body, headers = fake._reply(seen)
                data = b"" if body is None else json.dumps(body).encode("utf-8")
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                if body is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                try:
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            do_GET = do_POST = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def script(self, path: str, *replies: Reply) -> None:
        with self._lock:
            self._scripts.setdefault(path, []).extend(replies)

    def default(self, path: str, reply: Reply) -> None:
        with self._lock:
            self._defaults[path] = reply

    def requests_to(self, path: str) -> List[Seen]:
        with self._lock:
            return [s for s in self.seen if s.path == path]

    def _reply(self, seen: Seen) -> Tuple[int, Any, Dict[str, str]]:
        with self._lock:
            self.seen.append(seen)
            queue = self._scripts.get(seen.path)
            reply: Optional[Reply] = queue.pop(0) if queue else self._defaults.get(seen.path)
        if reply is None:
            return 404, {"detail": "Not Found"}, {}
        return reply(seen) if callable(reply) else reply

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
