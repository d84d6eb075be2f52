"""A local fake of an OpenAI-compatible chat completions API on 127.0.0.1 (`POST /v1/chat/completions`).

`script(Reply(...))` queues answers used in order (a proposal, garbage, a 429, a slow or held answer); without
one it answers intent "none". Every request body is kept (`requests`), so a test sees what the model was asked
and how often. A `Reply` with a `gate` waits until the test sets it; `before` runs while the request is open;
`trickle` sends the body a byte at a time.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer: a JSON body (or raw bytes), its HTTP status, a delay or a gate to wait for."""

    status: int = 200
    body: Any = None
    delay: float = 0.0
    gate: threading.Event | None = None
    before: Callable[[], None] | None = None
    trickle: float = 0.0  # seconds between the body's bytes: each read is quick, the whole answer is not


def completion(content: str) -> dict[str, Any]:
    """A chat completion whose message content is `content`."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }


def proposal(
    intent: str,
    person: str | None = None,
    text: str | None = None,
    *,
    priority: str | None = None,
    deadline: str | None = None,
    **extra: Any,
) -> Reply:
    """A structured-output answer with the proposal's fields."""
    fields = {"intent": intent, "person": person, "text": text, "priority": priority, "deadline": deadline, **extra}
    return Reply(body=completion(json.dumps(fields, ensure_ascii=False)))


def garbage(content: str = "Sure! I'll ask him right away.") -> Reply:
    """A 200 whose content is not the JSON object the schema asks for."""
    return Reply(body=completion(content))


RATE_LIMITED = Reply(429, {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}})
NOT_JSON = Reply(502, b"<html><body>502 Bad Gateway</body></html>")


class FakeLLM:
    """`start()` binds a free port; `url` is the API base to configure; `stop()` shuts it down."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.bodies: list[tuple[int, int]] = []  # (bytes written, body length) of every answer, once it ended
        self.body_ended = threading.Event()
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                reply = fake._next(self.path, body)
                if reply.before is not None:
                    reply.before()
                if reply.gate is not None:
                    reply.gate.wait(30)
                if reply.delay:
                    time.sleep(reply.delay)
                payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                written = 0
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    chunks = [payload[i : i + 1] for i in range(len(payload))] if reply.trickle else [payload]
                    for chunk in chunks:
                        self.wfile.write(chunk)
                        self.wfile.flush()
                        written += len(chunk)
                        time.sleep(reply.trickle)
                except OSError:  # the client gave up (its timeout)
                    pass
                fake.bodies.append((written, len(payload)))
                fake.body_ended.set()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_port}/v1"

    def _next(self, path: str, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append({"path": path, **body})
            if path != "/v1/chat/completions":
                return Reply(404, {"error": {"message": "not found"}})
            return self._script.popleft() if self._script else proposal("none")

    def script(self, *replies: Reply) -> None:
        """Answer the next requests with these, in order."""
        with self._lock:
            self._script.extend(replies)

    def start(self) -> FakeLLM:
        threading.Thread(target=self._server.serve_forever, name="fake-llm", daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
