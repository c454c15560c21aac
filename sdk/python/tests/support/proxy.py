"""A TCP proxy that can lose an answer, for the "stored exactly once" test.

Each client connection carries one HTTP request (urllib closes the connection after each): the
proxy reads the request, forwards it, reads the server's whole answer, and passes it back; except
for the first request whose path starts with ``drop_first``: that one reaches the server and is
answered there, and then the client's connection is closed without the answer, as when a network
fails at the worst moment.
"""

from __future__ import annotations

import socket
import threading
from typing import List, Optional


def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    return head + b"\r\n\r\n" + rest


def _read_all(conn: socket.socket) -> bytes:
    parts: List[bytes] = []
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)


class DroppingProxy:
    def __init__(self, upstream_port: int, drop_first: str) -> None:
        self._upstream = ("127.0.0.1", upstream_port)
        self._drop_first: Optional[str] = drop_first
        self._lock = threading.Lock()
        self.dropped: List[str] = []  # request lines whose answers were lost
        self.forwarded: List[str] = []  # request lines of every request forwarded
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._serve, name="dropping-proxy", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            request = _read_request(conn)
            if not request:
                return
            line = request.split(b"\r\n", 1)[0].decode("latin-1")
            path = line.split(" ")[1] if line.count(" ") >= 2 else ""
            with self._lock:
                drop = self._drop_first is not None and path.startswith(self._drop_first)
                if drop:
                    self._drop_first = None
                self.forwarded.append(line)
            with socket.create_connection(self._upstream) as upstream:
                upstream.sendall(request)
                answer = _read_all(upstream)  # the server answered, and closed (Connection: close)
            if drop:
                with self._lock:
                    self.dropped.append(line)
                return  # closing the client's connection without a byte of the answer
            conn.sendall(answer)

    def close(self) -> None:
        self._listener.close()
