"""The optional LLM (any OpenAI-compatible API): asked for a proposal, as JSON-schema structured output.

It is only a network client: the proposal it returns is judged by `llm_rules` (the rules and the person layer)
and carried out only through the normal decisions. Every failure is an `Answer` with a status, never an exception.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

import httpx

from cognitive_core.llm.rules import INTENTS, Answer
from kernel.limits import bad_text

log = logging.getLogger("deputy.llm")

SCHEMA: dict[str, Any] = {
    "name": "deputy_proposal",
    "strict": True,
    "schema": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "intent": {"type": "string", "enum": list(INTENTS)},
            "person": {"type": ["string", "null"], "description": "person_id of the person to ask or tell"},
            "text": {"type": ["string", "null"], "description": "the question or message, in the user's language"},
            "priority": {"type": ["string", "null"], "enum": ["P0", "P1", "P2", "P3", None]},
            "deadline": {"type": ["string", "null"], "description": "ISO 8601 with offset, or null"},
        },
        "required": ["intent", "person", "text", "priority", "deadline"],
    },
}
SYSTEM_PROMPT = (
    "You read one chat message a manager sent to their assistant bot and say what they want, or intent none.\n"
    "Intents: ask (put a question to a person and wait for the answer), tell (pass a message on to a person), "
    "status (which questions are still waiting for answers), did (what the bot did recently), none.\n"
    "person: the person_id of a known person, or null. Known people (person_id: names): {people}\n"
    "text: the question or message itself, in the message's language, without the person and without priority or "
    "deadline words. priority: P0 (urgent) to P3, or null. deadline: when the answer is needed, ISO 8601 with "
    "offset, or null. Now is {now}."
)


def _run(call: Any) -> Any:
    """Run `call` on an event loop of its own, in a thread of its own when this thread already runs one."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(call)
    # A caller inside a running loop (an async framework's thread): asyncio.run would refuse it.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, call).result()


class OpenAICompatibleLLM:
    """`POST {base_url}/chat/completions` with a JSON schema and a total deadline; runs requests on a small pool.

    The pool keeps the call off the processor's thread: the pass that recorded the request goes on at once.
    `timeout` is the whole call's deadline (connect, send, headers and the entire body): httpx's timeouts bound
    each socket operation only, so a server trickling a byte a second would hold a call for ever. Each call
    therefore runs on its own event loop under `asyncio.timeout`, whose cancellation closes the socket.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        model: str,
        timeout: float = 5.0,
        workers: int = 2,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._base_url = base_url.rstrip("/")
        self._transport = transport
        self.model = model
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="deputy-llm")
        self._running: set[Future] = set()
        self._lock = threading.Lock()

    def propose(self, text: str, *, people: list[str], now: str) -> Answer:
        """The model's proposal for `text` (never raises: a failure is an Answer saying which)."""
        body = {
            "model": self.model,
            "temperature": 0,
            "response_format": {"type": "json_schema", "json_schema": SCHEMA},
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT.format(people="; ".join(people), now=now)},
                {"role": "user", "content": text},
            ],
        }
        try:
            response = _run(self._post(body))
        except (TimeoutError, httpx.TimeoutException):
            return Answer("timeout")
        except httpx.HTTPError as exc:
            log.warning("llm unreachable: %s", type(exc).__name__)
            return Answer("unreachable")
        if response.status_code == 429:
            return Answer("rate_limited", response.text)
        if response.status_code >= 400:
            return Answer("http_error", f"HTTP {response.status_code}: {response.text}")
        try:
            raw = response.json()["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError, ValueError):
            return Answer("garbage", response.text)
        try:
            data = json.loads(raw)
        except (TypeError, ValueError):
            return Answer("garbage", str(raw))
        if not isinstance(data, dict) or not isinstance(data.get("intent"), str):
            return Answer("garbage", str(raw))
        if bad_text(data) is not None:  # U+0000 or a lone surrogate: no database stores it, no person should get it
            return Answer("garbage", str(raw))
        return Answer("ok", str(raw), data)

    async def _post(self, body: dict[str, Any]) -> httpx.Response:
        """The whole exchange, body read to the end, within `timeout` seconds (TimeoutError past it)."""
        async with asyncio.timeout(self.timeout):
            async with httpx.AsyncClient(
                base_url=self._base_url, headers=self._headers, timeout=self.timeout, transport=self._transport
            ) as client:
                return await client.post("/chat/completions", json=body)

    def submit(self, job: Any, *args: Any) -> None:
        """Run `job(*args)` on the pool (the caller goes on)."""
        future = self._pool.submit(job, *args)
        with self._lock:
            self._running.add(future)
        future.add_done_callback(self._finished)

    def _finished(self, future: Future) -> None:
        with self._lock:
            self._running.discard(future)
        if (exc := future.exception()) is not None:
            log.error("llm request failed: %s", type(exc).__name__, exc_info=exc)

    def settle(self, timeout: float = 30) -> None:
        """Wait for the requests submitted so far (tests, shutdown)."""
        with self._lock:
            running = set(self._running)
        wait(running, timeout=timeout)

    def close(self) -> None:
        """Finish the running requests (each bounded by the timeout); each call closes its own connection."""
        self._pool.shutdown(wait=True, cancel_futures=True)
