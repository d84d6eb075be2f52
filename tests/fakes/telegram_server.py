"""A local fake of the Telegram Bot API on 127.0.0.1, scriptable per method: sendMessage, copyMessage,
editMessageText/Caption, answerCallbackQuery, getMe, getUpdates.

Defaults behave like Telegram (the checks are in `telegram_rules`): sendMessage refuses HTML it cannot parse
and text over 4096 UTF-16 units after parsing; answerCallbackQuery refuses a second answer to the same query
(and toasts over 200 characters); copyMessage refuses a message it does not know (`remember()` the one a test
copies, as if a person had sent it); a reply_markup must be an inline keyboard. getUpdates confirms every
update below `offset` and long-polls up to `timeout` seconds (at most 2 s here); a getUpdates that arrives
while another is waiting ends the waiting one with 409 Conflict "terminated by other getUpdates request"
(counted in `conflicts`; a poll whose client hung up is dropped).
`script(method, Reply(...))` queues answers (errors, garbage, slow replies) used before the defaults.
Messages the bot sent are kept (`message(chat_id, message_id)`, `keyboard(...)`, the text as Telegram shows
it) so edits are checked like Telegram checks them: "message is not modified", "there is no text in the
message to edit", "message to edit not found", callback_data over 64 bytes, captions over 1024 units.
"""

from __future__ import annotations

import itertools
import json
import select
import socket
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from tests.fakes.telegram_rules import NOT_MODIFIED, markup_problem, visible

TOKEN = "123456:TEST-fake-token"
BOT = {"id": 123456, "is_bot": True, "first_name": "Deputy", "username": "deputy_bot"}


@dataclass
class Reply:
    """One scripted answer: a JSON object (or raw bytes), its HTTP status and a delay before answering."""

    status: int = 200
    body: Any = None
    delay: float = 0.0


def error(status: int, description: str, **parameters: Any) -> Reply:
    """A Bot API error answer (`parameters` like retry_after go into `parameters`)."""
    body = {"ok": False, "error_code": status, "description": description}
    if parameters:
        body["parameters"] = parameters
    return Reply(status, body)


FORBIDDEN_BLOCKED = error(403, "Forbidden: bot was blocked by the user")
CHAT_NOT_FOUND = error(400, "Bad Request: chat not found")
SERVER_ERROR = error(500, "Internal Server Error")
QUERY_TOO_OLD = error(400, "Bad Request: query is too old and response timeout expired or query ID is invalid")
NOT_JSON = Reply(502, b"<html><body>502 Bad Gateway</body></html>")
CONFLICT = error(
    409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
)


def too_many_requests(retry_after: int) -> Reply:
    """429 Too Many Requests with parameters.retry_after."""
    return error(429, f"Too Many Requests: retry after {retry_after}", retry_after=retry_after)


class FakeTelegram:
    """The fake server; `start()` binds a free port, `base_url` is what DEPUTY_TELEGRAM_API_BASE would be."""

    def __init__(self, token: str = TOKEN) -> None:
        self.token = token
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.get_updates_answers: list[tuple[int | None, list[int]]] = []
        self._scripts: dict[str, deque[Reply]] = defaultdict(deque)
        self._updates: list[dict[str, Any]] = []
        self._update_ids = itertools.count(1000)
        self._message_ids = itertools.count(1)
        self._cond = threading.Condition()
        self._server: ThreadingHTTPServer | None = None
        self.closed = False
        self.conflicts = 0  # 409s answered to a live poll because another poll came in
        self._polls: list[_Poll] = []  # getUpdates calls waiting for updates
        self.sent: dict[tuple[str, int], dict[str, Any]] = {}  # (chat id, message id) → what the bot sent
        # Like a proxy or a debugging gateway: every error description ends with the request URL (and its token).
        self.echo_url = False
        self._sources: dict[tuple[str, int], str] = {}  # the text as sent (markup included), for "not modified"
        self.known: set[tuple[str, int]] = set()  # messages people sent (copyMessage's sources)
        self.answered: set[str] = set()  # callback query ids answered

    @property
    def base_url(self) -> str:
        """http://127.0.0.1:<port>"""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> FakeTelegram:
        """Serve on a background thread."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                fake._serve(self)

            do_GET = do_POST

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(
            target=lambda: self._server.serve_forever(poll_interval=0.05), name="fake-telegram", daemon=True
        ).start()
        return self

    def stop(self) -> None:
        """Stop serving and release long-polling requests."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def script(self, method: str, *replies: Reply) -> None:
        """Answer the next calls of `method` with `replies`, in order, before the default behaviour."""
        with self._cond:
            self._scripts[method].extend(replies)

    def unscript(self, method: str) -> None:
        """Forget the answers still queued for `method`."""
        with self._cond:
            self._scripts[method].clear()

    def calls(self, method: str) -> list[dict[str, Any]]:
        """Parameters of every call of `method` so far, oldest first."""
        with self._cond:
            return [params for name, params in self.requests if name == method]

    def webhook_answer(self, answer: dict[str, Any]) -> bool:
        """Carry out the Bot API call a webhook's response holds (`{"method": …}`), as Telegram does once it has
        the response; it reports no result back. True when Telegram took the call."""
        method = answer.get("method")
        if not isinstance(method, str):
            return False
        params = {k: v for k, v in answer.items() if k != "method"}
        with self._cond:
            self.requests.append((method, params))
        return self._default(method, params, None).status == 200  # type: ignore[arg-type]

    def push_message(
        self,
        *,
        text: str | None,
        user_id: int = 1001,
        chat_id: int | None = None,
        chat_type: str = "private",
        **message: Any,
    ) -> int:
        """Queue a `message` update (as Telegram would hold it for getUpdates); returns its update_id."""
        body = {
            "message_id": next(self._message_ids),
            "date": 1773799200,
            "text": text,
            "from": {"id": user_id, "is_bot": False, "first_name": f"user{user_id}"},
            "chat": {"id": chat_id if chat_id is not None else user_id, "type": chat_type},
            **message,
        }
        if text is None:  # a media message: only a caption, if any
            del body["text"]
        self.remember(body["chat"]["id"], body["message_id"])
        return self.push_update({"message": body})

    def remember(self, chat_id: int | str, message_id: int | str) -> None:
        """A message a person sent to `chat_id` (one copyMessage may copy) without an update for it."""
        with self._cond:
            self.known.add((str(chat_id), int(message_id)))

    def push_update(self, update: dict[str, Any]) -> int:
        """Queue any update; an update_id is assigned when missing."""
        with self._cond:
            update = {"update_id": next(self._update_ids), **update}
            self._updates.append(update)
            self._cond.notify_all()
            return update["update_id"]

    def push_callback(
        self,
        *,
        data: str | None,
        user_id: int = 1001,
        chat_id: int | None = None,
        message_id: int | None = 1,
        callback_id: str | None = None,
        is_bot: bool = False,
    ) -> str:
        """Queue a `callback_query` update (a button press on message `message_id`); returns the callback id."""
        callback_id = callback_id or f"cb{next(self._update_ids)}"
        query: dict[str, Any] = {
            "id": callback_id,
            "from": {"id": user_id, "is_bot": is_bot, "first_name": f"user{user_id}"},
            "chat_instance": "ci-1",
        }
        if data is not None:
            query["data"] = data
        if message_id is not None:
            chat = chat_id if chat_id is not None else user_id
            query["message"] = {
                "message_id": message_id,
                "date": 1773799200,
                "chat": {"id": chat, "type": "private"},
                "from": BOT,
                "text": "question",
            }
        self.push_update({"callback_query": query})
        return callback_id

    def message(self, chat_id: int | str, message_id: int | str) -> dict[str, Any] | None:
        """What the bot's message looks like now (text or caption, reply_markup), or None."""
        with self._cond:
            return self.sent.get((str(chat_id), int(message_id)))

    def keyboard(self, chat_id: int | str, message_id: int | str) -> list[list[tuple[str, str]]]:
        """The inline keyboard under a message as rows of (label, callback_data); [] without one."""
        found = self.message(chat_id, message_id) or {}
        rows = (found.get("reply_markup") or {}).get("inline_keyboard") or []
        return [[(b["text"], b.get("callback_data", "")) for b in row] for row in rows]

    def pending_update_ids(self) -> list[int]:
        """Update ids not yet confirmed by a getUpdates offset."""
        with self._cond:
            return [u["update_id"] for u in self._updates]

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        token, _, method = handler.path.lstrip("/").removeprefix("bot").partition("/")
        params = self._params(handler)
        with self._cond:
            self.requests.append((method, params))
            scripted = self._scripts[method].popleft() if self._scripts[method] else None
        if token != self.token:
            reply = error(401, "Unauthorized")
        elif scripted is not None:
            reply = scripted
        else:
            reply = self._default(method, params, handler)
        if reply.delay:
            time.sleep(reply.delay)
        if self.echo_url and reply.status >= 400 and isinstance(reply.body, dict):
            url = f"{self.base_url}{handler.path}?chat_id={params.get('chat_id', '')}"
            reply = Reply(reply.status, {**reply.body, "description": f"{reply.body['description']} ({url})"})
        payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
        try:
            handler.send_response(reply.status)
            handler.send_header(
                "Content-Type", "application/json" if not isinstance(reply.body, bytes) else "text/html"
            )
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
        except OSError:  # the client gave up (a timeout test)
            pass

    @staticmethod
    def _params(handler: BaseHTTPRequestHandler) -> dict[str, Any]:
        raw = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        if "json" in (handler.headers.get("Content-Type") or ""):
            return json.loads(raw or b"{}")
        return {k: v[0] for k, v in parse_qs(raw.decode(), keep_blank_values=True).items()}

    def _default(self, method: str, params: dict[str, Any], handler: BaseHTTPRequestHandler) -> Reply:
        if method == "getMe":
            return Reply(200, {"ok": True, "result": BOT})
        if method == "sendMessage":
            return self._send_message(params)
        if method == "copyMessage":
            return self._copy_message(params)
        if method in ("editMessageText", "editMessageCaption"):
            return self._edit(method, params)
        if method == "answerCallbackQuery":
            return self._answer(params)
        if method == "getUpdates":
            return self._get_updates(params, handler)
        return error(404, "Not Found: method not found")

    def _answer(self, params: dict[str, Any]) -> Reply:
        """Telegram answers a query once; the second answer is refused like an expired one."""
        query_id = str(params.get("callback_query_id") or "")
        with self._cond:
            if not query_id or query_id in self.answered:
                return QUERY_TOO_OLD
            if len(str(params.get("text") or "")) > 200:
                return error(400, "Bad Request: MESSAGE_TOO_LONG")
            self.answered.add(query_id)
        return Reply(200, {"ok": True, "result": True})

    def _send_message(self, params: dict[str, Any]) -> Reply:
        text, problem = visible(params, "text", 4096)
        if problem:
            return error(400, problem)
        if not text.strip():
            return error(400, "Bad Request: message text is empty")
        markup = _markup(params)
        if problem := markup_problem(markup):
            return error(400, problem)
        return Reply(200, {"ok": True, "result": self._keep(params, "text", text=text, reply_markup=markup)})

    def _keep(self, params: dict[str, Any], field: str, **content: Any) -> dict[str, Any]:
        chat_id = str(params["chat_id"])
        chat = {"id": int(chat_id) if chat_id.lstrip("-").isdigit() else chat_id, "type": "private"}
        message = {"message_id": next(self._message_ids), "date": int(time.time()), "chat": chat, "from": BOT}
        message.update({k: v for k, v in content.items() if v is not None})
        with self._cond:
            self.sent[(chat_id, message["message_id"])] = message
            self._sources[(chat_id, message["message_id"])] = str(params.get(field) or "")
        return message

    def _copy_message(self, params: dict[str, Any]) -> Reply:
        source = (str(params.get("from_chat_id") or ""), int(params.get("message_id") or 0))
        with self._cond:
            if source not in self.known and source not in self.sent:
                return error(400, "Bad Request: message to copy not found")
        caption = None
        if params.get("caption") is not None:
            caption, problem = visible(params, "caption", 1024)
            if problem:
                return error(400, problem)
        markup = _markup(params)
        if problem := markup_problem(markup):
            return error(400, problem)
        copied = self._keep(
            params,
            "caption",
            caption=caption if caption is not None else "(original caption)",
            photo=[{"file_id": f"copy-{params['message_id']}", "file_unique_id": "u", "width": 90, "height": 90}],
            reply_markup=markup,
        )
        return Reply(200, {"ok": True, "result": {"message_id": copied["message_id"]}})

    def _edit(self, method: str, params: dict[str, Any]) -> Reply:
        key = (str(params.get("chat_id")), int(params.get("message_id") or 0))
        field = "text" if method == "editMessageText" else "caption"
        markup = _markup(params)
        with self._cond:
            current = self.sent.get(key)
            if current is None:
                return error(400, "Bad Request: message to edit not found")
            if field == "text" and "text" not in current:
                return error(400, "Bad Request: there is no text in the message to edit")
            new, problem = visible(params, field, 4096 if field == "text" else 1024)
            if problem or (problem := markup_problem(markup)):
                return error(400, problem)
            if field == "text" and not new.strip():
                return error(400, "Bad Request: text must be non-empty")
            shown = current.get("reply_markup") or {"inline_keyboard": []}
            source = str(params.get(field) or "")
            if self._sources.get(key) == source and shown == (markup or {"inline_keyboard": []}):
                return error(400, NOT_MODIFIED)
            current[field], self._sources[key] = new, source
            current["reply_markup"] = markup if markup and markup.get("inline_keyboard") else None
            return Reply(200, {"ok": True, "result": dict(current)})

    def _get_updates(self, params: dict[str, Any], handler: BaseHTTPRequestHandler) -> Reply:
        offset = int(params["offset"]) if params.get("offset") not in (None, "") else None
        limit = int(params.get("limit") or 100)
        deadline = time.monotonic() + min(float(params.get("timeout") or 0), 2.0)
        poll = _Poll(handler.connection)
        with self._cond:
            for other in self._polls:  # like Telegram: the newer poll wins, the waiting one is terminated
                if other.alive():
                    other.terminated = True
                    self.conflicts += 1
            self._polls = [poll]
            self._cond.notify_all()
            if offset is not None:  # Telegram forgets every update below the offset: they are confirmed
                self._updates = [u for u in self._updates if u["update_id"] >= offset]
            while not self._updates and not self.closed and not poll.terminated and time.monotonic() < deadline:
                self._cond.wait(min(0.05, deadline - time.monotonic()))
                if not poll.alive():  # the client hung up (its process died): nobody to answer
                    poll.terminated = True
            if poll in self._polls:
                self._polls.remove(poll)
            if poll.terminated:
                return CONFLICT  # to a hung-up client this reply goes nowhere
            batch = self._updates[:limit]
            self.get_updates_answers.append((offset, [u["update_id"] for u in batch]))
        return Reply(200, {"ok": True, "result": batch})


def _markup(params: dict[str, Any]) -> dict[str, Any] | None:
    """reply_markup as a dict (PTB sends it JSON-encoded inside the form)."""
    markup = params.get("reply_markup")
    return json.loads(markup) if isinstance(markup, str) else markup


class _Poll:
    """One waiting getUpdates call and the socket of the client that made it."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.terminated = False

    def alive(self) -> bool:
        """False once the client closed its connection (readable with nothing to read: EOF)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return not readable or self.connection.recv(1, socket.MSG_PEEK) != b""
        except (OSError, ValueError):
            return False
