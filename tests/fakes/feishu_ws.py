"""A fake of Feishu's long-connection websocket: lark-oapi's ws.Client connects to it and answers its frames.

As Feishu does (lark-oapi's frame protocol, pbbp2.Frame over a websocket):
- each event is a DATA frame (headers type=event, message_id, sum, seq, trace_id; the event JSON as payload); the
  client answers with the same frame whose payload is `{"code": 200, "data": base64(answer)}`;
- delivery is at least once: an event stays pending until its answer arrives. One sent while no client is
  connected, or whose answer was lost with the connection, is sent again when a client connects (Feishu also
  retries an unanswered event later, on its own schedule; here the reconnect is the retry);
- a client's ping (CONTROL frame, type=ping) is answered with a pong whose payload is the ClientConfig;
- the server can close the socket (`drop()`, as on a Feishu deploy) or go half-open (`stall()`: it stops reading and
  writes nothing, not even the websocket layer's pongs, while the TCP connection stays up).
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import contextlib
import itertools
import json
import threading
from typing import Any

from lark_oapi.ws.pb.pbbp2_pb2 import Frame
from websockets.asyncio.server import ServerConnection, serve

# What Feishu's /callback/ws/endpoint answers in production (ReconnectCount -1: retry for ever, the first retry
# after a random 0-ReconnectNonce s, then every ReconnectInterval s; a ping every PingInterval s).
PRODUCTION_CONFIG = {"ReconnectCount": -1, "ReconnectInterval": 120, "ReconnectNonce": 30, "PingInterval": 120}
WS_CONFIG = {"ReconnectCount": -1, "ReconnectInterval": 1, "ReconnectNonce": 0, "PingInterval": 120}  # tests
DATA, CONTROL = 1, 0


def _frame(method: int, headers: dict[str, str], payload: bytes = b"") -> bytes:
    frame = Frame(SeqID=0, LogID=0, service=1, method=method, payload=payload)
    for key, value in headers.items():
        header = frame.headers.add()
        header.key, header.value = key, value
    return frame.SerializeToString()


class FakeLongConnection:
    """`start()` serves on 127.0.0.1; `url` is what the endpoint hands the client; `push`/`deliver` send events."""

    def __init__(self, config: dict[str, int] | None = None) -> None:
        self.url = ""
        self.config = dict(config or WS_CONFIG)
        self.connections = 0  # sockets a client opened
        self.pings = 0  # ping frames the client sent
        self.sent: list[str] = []  # message ids in the order they went out (a redelivery appears again)
        self._loop = asyncio.new_event_loop()
        self._server: Any = None
        self._conn: ServerConnection | None = None
        self._connected = threading.Event()
        self._pending: dict[str, bytes] = {}  # message id → event frame, until answered
        self._answers: dict[str, concurrent.futures.Future[dict[str, Any]]] = {}
        self._lose_answers = 0  # answers to drop on the floor (the connection then closes)
        self._ids = itertools.count(1)

    def start(self) -> FakeLongConnection:
        threading.Thread(target=self._loop.run_forever, name="fake-feishu-ws", daemon=True).start()

        async def boot() -> Any:
            return await serve(self._serve, "127.0.0.1", 0)

        self._server = self._run(boot())
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}/ws?device_id=dev-1&service_id=1"
        return self

    def _run(self, coroutine: Any, timeout: float = 5.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def stop(self) -> None:
        """Close the server and stop its loop."""
        if self._server is not None:

            async def close() -> None:
                self._server.close()
                with contextlib.suppress(TimeoutError):  # a client whose loop is gone never completes the close
                    await asyncio.wait_for(self._server.wait_closed(), 1)
                others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
                for task in others:  # a stalled socket's handler, keepalives: end them before the loop stops
                    task.cancel()
                await asyncio.gather(*others, return_exceptions=True)

            self._run(close())
        self._loop.call_soon_threadsafe(self._loop.stop)

    @property
    def connected(self) -> bool:
        """True while a client's socket is open."""
        return self._connected.is_set()

    async def _serve(self, conn: ServerConnection) -> None:
        self._conn = conn
        self.connections += 1
        self._connected.set()
        for message_id, frame in list(self._pending.items()):  # what the last connection did not answer
            await self._send(conn, message_id, frame)
        try:
            async for raw in conn:
                await self._received(conn, raw)
        finally:
            if self._conn is conn:
                self._conn = None
                self._connected.clear()

    async def _received(self, conn: ServerConnection, raw: bytes | str) -> None:
        frame = Frame()
        frame.ParseFromString(raw)
        headers = {h.key: h.value for h in frame.headers}
        if frame.method == CONTROL:
            if headers.get("type") == "ping":
                self.pings += 1
                pong = _frame(CONTROL, {"type": "pong"}, json.dumps(self.config).encode())
                await conn.send(pong)
            return
        message_id = headers.get("message_id", "")
        if self._lose_answers > 0:  # the answer is lost on the way: Feishu never sees it, the socket ends
            self._lose_answers -= 1
            await conn.close()
            return
        self._pending.pop(message_id, None)
        waiting = self._answers.pop(message_id, None)
        if waiting is not None and not waiting.done():
            waiting.set_result(json.loads(frame.payload))

    async def _send(self, conn: ServerConnection, message_id: str, frame: bytes) -> None:
        self.sent.append(message_id)
        with contextlib.suppress(Exception):  # the socket went meanwhile: the event stays pending
            await conn.send(frame)

    def deliver(self, payload: dict[str, Any]) -> concurrent.futures.Future[dict[str, Any]]:
        """Queue one event for delivery (now if a client is connected); the future is its client's answer."""
        message_id = f"msg-{next(self._ids)}"
        headers = {"type": "event", "message_id": message_id, "sum": "1", "seq": "0", "trace_id": "t"}
        frame = _frame(DATA, headers, json.dumps(payload).encode())
        answer: concurrent.futures.Future[dict[str, Any]] = concurrent.futures.Future()

        async def queue() -> None:
            self._pending[message_id] = frame
            self._answers[message_id] = answer
            if self._conn is not None:
                await self._send(self._conn, message_id, frame)

        self._run(queue())
        return answer

    def push(self, payload: dict[str, Any], *, timeout: float = 10.0) -> dict[str, Any]:
        """Send one event once a client is connected; the client's answer, its `data` decoded from base64."""
        if not self._connected.wait(timeout):
            raise AssertionError("no long-connection client connected")
        reply = self.deliver(payload).result(timeout)
        if reply.get("data"):
            reply["data"] = json.loads(base64.b64decode(reply["data"]))
        return reply

    def pending(self) -> int:
        """Events not answered yet."""
        return len(self._pending)

    def wait_connections(self, count: int, timeout: float = 10.0) -> bool:
        """Wait until `count` sockets were opened and one is open now."""
        done = threading.Event()

        async def poll() -> None:
            while not (self.connections >= count and self._conn is not None):
                await asyncio.sleep(0.01)
            done.set()

        future = asyncio.run_coroutine_threadsafe(poll(), self._loop)
        try:
            return done.wait(timeout)
        finally:
            future.cancel()

    def drop(self, code: int = 1001) -> None:
        """Close the client's socket from the server's side (1001: going away, as on a deploy)."""

        async def close() -> None:
            if self._conn is not None:
                await self._conn.close(code)

        self._run(close())

    def lose_next_answer(self) -> None:
        """The next event's answer never reaches Feishu and the socket closes: the event comes again."""
        self._lose_answers += 1

    def stall(self) -> None:
        """Go half-open: read nothing (so no websocket pong either) and send nothing, the TCP connection kept."""

        async def pause() -> None:
            if self._conn is not None:
                self._conn.transport.pause_reading()
                self._conn = None  # nothing more is written to it; a new client socket is served normally
                self._connected.clear()

        self._run(pause())
