"""A fake of Feishu's long-connection websocket: lark-oapi's ws.Client connects to it and answers its frames.

Feishu pushes each event as a protobuf DATA frame (headers type=event, message_id, sum, seq, trace_id; the event
JSON as payload); the client answers with the same frame whose payload is `{"code": 200, "data": base64(answer)}`,
where the answer is what the handler returned (a card callback's toast). Ping frames are read and ignored.
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

WS_CONFIG = {"ReconnectCount": -1, "ReconnectInterval": 1, "ReconnectNonce": 0, "PingInterval": 120}
DATA, CONTROL = 1, 0


class FakeLongConnection:
    """`start()` serves on 127.0.0.1; `url` is what the endpoint hands the client; `push(payload)` delivers."""

    def __init__(self) -> None:
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._server: Any = None
        self._conn: ServerConnection | None = None
        self._connected = threading.Event()
        self._answers: dict[str, concurrent.futures.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)

    def start(self) -> FakeLongConnection:
        threading.Thread(target=self._loop.run_forever, name="fake-feishu-ws", daemon=True).start()

        async def boot() -> Any:
            return await serve(self._serve, "127.0.0.1", 0)

        self._server = asyncio.run_coroutine_threadsafe(boot(), self._loop).result(5)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}/ws?device_id=dev-1&service_id=1"
        return self

    def stop(self) -> None:
        """Close the server and stop its loop."""
        if self._server is not None:

            async def close() -> None:
                self._server.close()
                with contextlib.suppress(TimeoutError):  # a client whose loop is gone never completes the close
                    await asyncio.wait_for(self._server.wait_closed(), 1)

            asyncio.run_coroutine_threadsafe(close(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)

    async def _serve(self, conn: ServerConnection) -> None:
        self._conn = conn
        self._connected.set()
        async for raw in conn:
            frame = Frame()
            frame.ParseFromString(raw)
            if frame.method != DATA:
                continue  # pings
            headers = {h.key: h.value for h in frame.headers}
            waiting = self._answers.pop(headers.get("message_id", ""), None)
            if waiting is not None:
                waiting.set_result(json.loads(frame.payload))

    def push(self, payload: dict[str, Any], *, timeout: float = 10.0) -> dict[str, Any]:
        """Send one event frame once a client is connected; the client's answer, its `data` decoded from base64."""
        if not self._connected.wait(timeout) or self._conn is None:
            raise AssertionError("no long-connection client connected")
        message_id = f"msg-{next(self._ids)}"
        frame = Frame(SeqID=0, LogID=0, service=1, method=DATA, payload=json.dumps(payload).encode())
        for key, value in {"type": "event", "message_id": message_id, "sum": "1", "seq": "0", "trace_id": "t"}.items():
            header = frame.headers.add()
            header.key, header.value = key, value
        answer: concurrent.futures.Future[dict[str, Any]] = concurrent.futures.Future()
        self._answers[message_id] = answer
        asyncio.run_coroutine_threadsafe(self._conn.send(frame.SerializeToString()), self._loop).result(timeout)
        reply = answer.result(timeout)
        if reply.get("data"):
            reply["data"] = json.loads(base64.b64decode(reply["data"]))
        return reply
