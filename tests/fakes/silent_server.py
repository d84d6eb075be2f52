"""A TCP server on 127.0.0.1 that accepts connections and never answers: a hung Redis (or database).

`relay_to(host, port)` turns it into a plain relay to a real server, for new connections and for
connections already open, so a test can watch a dependency hang and then recover. It counts the
connections it accepted and the bytes clients sent, so a test can tell whether a call reached it.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any


class SilentServer:
    """`start()` binds a free port; `url` / `port` say where; `stop()` closes every connection."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.connections = 0
        self.bytes_received = 0
        self._upstream: tuple[str, int] | None = None
        self._lock = threading.Lock()
        self._relaying = threading.Event()
        self._sockets: list[socket.socket] = []
        self._stopped = False

    def url(self, scheme: str = "redis", path: str = "/0") -> str:
        """e.g. redis://127.0.0.1:<port>/0"""
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    def start(self) -> SilentServer:
        """Accept connections on a daemon thread."""
        threading.Thread(target=self._accept, name="silent-server", daemon=True).start()
        return self

    def relay_to(self, host: str, port: int) -> None:
        """From now on, forward every connection (open or new) to host:port and back."""
        self._upstream = (host, port)
        self._relaying.set()

    def stop(self) -> None:
        """Close the listener and every connection."""
        self._stopped = True
        self._relaying.set()
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in [self._listener, *sockets]:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self) -> None:
        while not self._stopped:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
                self._sockets.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        held = bytearray()
        conn.settimeout(0.05)
        while not self._relaying.is_set():  # silent: read and hold what the client sends, answer nothing
            chunk = self._read(conn)
            if chunk is None:
                continue
            if not chunk:
                return
            with self._lock:
                self.bytes_received += len(chunk)
            held += chunk
        if self._stopped or self._upstream is None:
            return
        upstream = socket.create_connection(self._upstream)
        with self._lock:
            self._sockets.append(upstream)
        upstream.sendall(held)  # what the client sent while we were silent still gets its answer
        threading.Thread(target=self._pipe, args=(upstream, conn), daemon=True).start()
        self._pipe(conn, upstream)

    @staticmethod
    def _read(conn: socket.socket) -> bytes | None:
        try:
            return conn.recv(65536)
        except TimeoutError:
            return None
        except OSError:
            return b""

    def _pipe(self, source: socket.socket, target: socket.socket) -> None:
        while not self._stopped:
            chunk = self._read(source)
            if chunk is None:
                continue
            if not chunk:
                break
            try:
                target.sendall(chunk)
            except OSError:
                break
        for sock in (source, target):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> SilentServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
