"""A local fake of the Feishu open platform (tenant token, im/v1/messages, contact v3, calendar v4 freebusy) on
127.0.0.1, scriptable.

Defaults behave like Feishu: tokens come from `tenant_access_token/internal` for the right app credentials and
stay valid until `expire_tokens()`; a request with an unknown token gets 99991663; a message uuid seen before
returns the first message again; request bodies over 150 KB (text) or 30 KB (cards, and any patch) are refused
with 230025, measured on the bytes as they came.
`script(route, Reply(...))` queues answers used before the defaults (routes: token, messages, forward, patch,
departments, users, freebusy). Cards are checked like Feishu checks them: a JSON 2.0 card with an `action` module
is refused (230099 / 200861), one whose markdown or plain_text lacks its string content (230099 / 200621), one of
over 200 elements (230099 / 300305); only a shared (`update_multi`) card can be patched, a text message cannot
(230001).
`start_long_connection()` serves lark's long connection (the endpoint and a websocket speaking its frames), so
`push_event(payload)` delivers an event as Feishu would and returns the client's answer.
`POST /open-apis/calendar/v4/freebusy/list` answers one user's busy blocks (`add_busy`) overlapping
[time_min, time_max] as `freebusy_list: [{start_time, end_time}]` in RFC 3339 (+08:00), and refuses with 190002
(the calendar's "invalid parameters") what Feishu's documentation rules out: a time that is not RFC 3339, time_max
not after time_min, more than 90 days between them, neither user_id nor room_id; and, as a bad parameter too, a
user it does not know (known: added by `add_user` or `add_busy`).
Reads and urgency as Feishu documents them: `mark_read(message_id, open_id)` makes `read_users` list a reader
(pages of `page_size`, `page_token`; only the bot's own messages, 230012, and younger than 7 days, 230033);
`urgent_app` / `urgent_sms` / `urgent_phone` urge only the bot's own messages (230012), list users outside the
chat in `invalid_user_id_list`, refuse a person with 200 unread urgent messages (230023) and SMS or calls past
the tenant's quota (`urgent_quota`, 230024); each of these routes allows `rate_limit` calls a second (99991400).
Also here: what Feishu does to events on the way out (encrypt, sign), for webhook tests.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from Crypto.Cipher import AES

from tests.fakes.feishu_ws import FakeLongConnection

APP_ID, APP_SECRET = "cli_test_app", "test-secret"

# Every kind of markup Feishu renders somewhere (text messages, cards' markdown and lark_md), as a colleague might
# type it: what Deputy passes on must arrive as these characters.
PERSON_MARKUP = (
    '<at id=all></at> <at user_id="all">所有人</at> <at user_id="ou_boss">老板</at> <at id=ou_boss></at>\n'
    "[纪要](https://evil.example/a) <a href='https://evil.example/b'>纪要</a> <link url='https://evil.example'>x</link>\n"
    "<font color='red'>延期</font> <text_tag color='red'>急</text_tag>\n"
    "# 标题\n## 小标题\n- 后端完成\n- 前端进行中\n1. 一\n2. 二\n"
    "| 模块 | 状态 |\n|---|---|\n| 后端 | 完成 |\n"
    "**重要** __也重要__ *斜体* `code` ~~旧方案~~\n```\nrm -rf /\n```\n"
    "![图](img_v3_key) :OK: > 引用\n---\n&lt;at id=all&gt;"
)


@dataclass
class Reply:
    """One scripted answer: a JSON object (or raw bytes), its HTTP status, extra headers, a delay before answering."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    hang_up: bool = False  # close the connection without answering (after reading the request)


def code(number: int, msg: str, status: int = 400, **headers: str) -> Reply:
    """A Feishu business error answer."""
    return Reply(status, {"code": number, "msg": msg}, headers)


NO_AVAILABILITY = code(230013, "Bot has NO availability to this user.")
BOT_NOT_IN_CHAT = code(230002, "The bot can not be outside the group.")
TOO_MANY_REQUESTS = code(99991400, "request trigger frequency limit", **{"x-ogw-ratelimit-reset": "3"})
TOKEN_EXPIRED = code(99991663, "Invalid access token for authorization. Please make a request with token attached.")
SERVER_ERROR = Reply(500, {"code": 1500, "msg": "internal error"})
CALENDAR_RATE_LIMITED = code(190004, "method rate limited", status=429)  # Feishu's calendar error table
NO_CALENDAR_SCOPE = code(
    99991672,
    "Access denied. One of the following scopes is required: [calendar:calendar, calendar:calendar.free_busy:read, "
    "calendar:calendar:readonly].",
)
BEIJING = timezone(timedelta(hours=8))  # Feishu writes calendar times with the tenant's offset
NOT_JSON = Reply(502, b"<html><body>502 Bad Gateway</body></html>")


def delivered(message_id: str = "om_scripted") -> Reply:
    """A successful im/v1/messages answer (to script a success before a failure)."""
    return Reply(200, {"code": 0, "msg": "success", "data": {"message_id": message_id}})


@dataclass
class Seen:
    """A request the fake received."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    size: int = 0  # the request body's bytes, as they came


class FakeFeishu:
    """Start with `start()`; `domain` is what DEPUTY_FEISHU_DOMAIN should be."""

    def __init__(self, app_id: str = APP_ID, app_secret: str = APP_SECRET) -> None:
        self.app_id, self.app_secret = app_id, app_secret
        self.requests: list[Seen] = []
        self.messages: list[dict[str, Any]] = []  # accepted im/v1/messages bodies, with receive_id_type
        self.patches: list[dict[str, Any]] = []  # accepted patches: message_id and the new card
        self.ws: Any = None  # the long-connection server, once started
        self.tokens_issued = 0
        self.departments: dict[str, list[str]] = {"0": []}  # department id → child department ids
        self.users: dict[str, list[dict[str, Any]]] = defaultdict(list)  # department id → users
        self.busy: dict[str, list[tuple[datetime, datetime]]] = defaultdict(list)  # open_id → busy blocks
        self.readers: dict[str, dict[str, int]] = defaultdict(dict)  # message id → open_id → read time (ms)
        self.urgents: list[dict[str, Any]] = []  # accepted urgent calls: message_id, mode, user_ids
        self.members: dict[str, set[str]] = {}  # group chat id → member open_ids (unknown chats: anyone)
        self.urgent_quota: dict[str, int] = {"sms": 1000, "phone": 1000}  # the tenant's SMS and call quota
        self.unread_urgent: dict[str, int] = defaultdict(int)  # open_id → urgent messages they have not read
        self.rate_limit = 50  # calls a second per read/urgent route, as Feishu documents (50 次/秒)
        self.rate_clock: Callable[[], float] = time.monotonic  # the gateway's seconds; a test may stop them
        self._calls: dict[str, deque[float]] = defaultdict(deque)
        self._sent_at: dict[str, float] = {}  # message id → when the fake accepted it (its own clock)
        self._valid: set[str] = set()
        self._by_uuid: dict[str, tuple[str, float]] = {}  # uuid → (message id, when it was first used)
        self._skew = 0.0  # seconds `advance()` moved the fake's clock on
        self._scripts: dict[str, deque[Reply]] = defaultdict(deque)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-feishu", daemon=True
        )

    def advance(self, seconds: float) -> None:
        """Move the fake's clock on (a uuid de-duplicates for an hour only)."""
        self._skew += seconds

    def _now(self) -> float:
        return time.monotonic() + self._skew

    def _first(self, uuid: str | None) -> str | None:
        """The message a uuid already made within the last hour (Feishu: "持续时间为一小时"), else None."""
        seen = self._by_uuid.get(uuid or "")
        return seen[0] if seen is not None and self._now() - seen[1] < 3600 else None

    def _keep_uuid(self, uuid: str | None, message_id: str) -> None:
        if uuid:
            self._by_uuid[uuid] = (message_id, self._now())

    @property
    def domain(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> FakeFeishu:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self.ws is not None:
            self.ws.stop()
        self._server.shutdown()
        self._server.server_close()

    def script(self, route: str, *replies: Reply) -> None:
        """Answer the next requests on `route` with these replies, in order."""
        with self._lock:
            self._scripts[route].extend(replies)

    def expire_tokens(self) -> None:
        """Every tenant token issued so far stops working (99991663)."""
        with self._lock:
            self._valid.clear()

    def add_department(self, department_id: str, parent: str = "0") -> None:
        self.departments.setdefault(department_id, [])
        self.departments[parent].append(department_id)

    def add_user(self, open_id: str, name: str, *, department: str = "0", **fields: Any) -> None:
        self.users[department].append({"open_id": open_id, "name": name, "union_id": f"on_{open_id}", **fields})

    def add_busy(self, open_id: str, start: datetime, end: datetime) -> None:
        """A busy event on the user's primary calendar, [start, end)."""
        self.busy[open_id].append((start, end))

    def freebusy_requests(self) -> list[Seen]:
        """The calendar v4 freebusy/list requests received, oldest first."""
        return [r for r in self.requests if r.path == "/open-apis/calendar/v4/freebusy/list"]

    def mark_read(self, message_id: str, open_id: str, *, at_ms: int = 1773799200000) -> None:
        """`open_id` read the message at `at_ms` (read_users lists them from now on; their urgent count drops)."""
        with self._lock:
            self.readers[message_id][open_id] = at_ms
            if any(u["message_id"] == message_id and open_id in u["user_ids"] for u in self.urgents):
                self.unread_urgent[open_id] = max(0, self.unread_urgent[open_id] - 1)

    def sent_to(self, receive_id: str) -> list[dict[str, Any]]:
        """Accepted messages for one receiver, oldest first."""
        return [m for m in self.messages if m["receive_id"] == receive_id]

    def card(self, message_id: str) -> dict[str, Any] | None:
        """The card a message shows now (after any patch), or None for a message that is not a card."""
        found = next((m for m in self.messages if m["message_id"] == message_id), None)
        if found is None or found.get("msg_type") != "interactive":
            return None
        return json.loads(found["content"])

    def buttons(self, message_id: str) -> list[tuple[str, str]]:
        """The (label, token) of every button on a card, in order; [] without any."""
        found: list[tuple[str, str]] = []

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                if node.get("tag") == "button":
                    value = next((b.get("value") for b in node.get("behaviors", []) if b.get("type") == "callback"), {})
                    found.append((node["text"]["content"], (value or {}).get("t", "")))
                for child in node.values():
                    walk(child)
            elif isinstance(node, list):
                for child in node:
                    walk(child)

        walk((self.card(message_id) or {}).get("body"))
        return found

    def start_long_connection(self, config: dict[str, int] | None = None) -> FakeLongConnection:
        """Serve the long connection: /callback/ws/endpoint then answers with this fake's websocket URL and
        `config` as the ClientConfig (default: tests/fakes/feishu_ws.WS_CONFIG, reconnecting at once)."""
        self.ws = FakeLongConnection(config).start()
        return self.ws

    def push_event(self, payload: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Deliver an event over the long connection; the client's answer (code, and its data decoded)."""
        return self.ws.push(payload, timeout=timeout)

    # ---- routes -------------------------------------------------------------------------------------

    def _route(self, seen: Seen) -> tuple[str, Reply | None]:
        if seen.path == "/open-apis/auth/v3/tenant_access_token/internal":
            return "token", None
        if seen.path == "/open-apis/im/v1/messages":
            return "messages", None
        if seen.path.startswith("/open-apis/im/v1/messages/") and seen.path.endswith("/forward"):
            return "forward", None
        if seen.path.startswith("/open-apis/im/v1/messages/") and seen.path.endswith("/read_users"):
            return "read_users", None
        if seen.path.startswith("/open-apis/im/v1/messages/") and seen.path.split("/")[-1].startswith("urgent_"):
            return "urgent", None
        if seen.path.startswith("/open-apis/im/v1/messages/") and seen.method == "PATCH":
            return "patch", None
        if seen.path == "/callback/ws/endpoint" and self.ws is not None:
            return "ws", Reply(
                200, {"code": 0, "msg": "ok", "data": {"URL": self.ws.url, "ClientConfig": self.ws.config}}
            )
        if seen.path.startswith("/open-apis/contact/v3/departments/") and seen.path.endswith("/children"):
            return "departments", None
        if seen.path == "/open-apis/contact/v3/users/find_by_department":
            return "users", None
        if seen.path == "/open-apis/calendar/v4/freebusy/list" and seen.method == "POST":
            return "freebusy", None
        return "unknown", Reply(404, {"code": 404, "msg": "not found"})

    def _answer(self, seen: Seen) -> Reply:
        route, fixed = self._route(seen)
        with self._lock:
            if fixed is not None:
                return fixed
            if self._scripts[route]:
                return self._scripts[route].popleft()
            if route == "token":
                return self._token(seen.body or {})
            if seen.headers.get("authorization", "").removeprefix("Bearer ") not in self._valid:
                return TOKEN_EXPIRED
            if route in ("read_users", "urgent") and self._over_rate(route):
                return TOO_MANY_REQUESTS
            routes = {"messages": self._message, "forward": self._forward, "patch": self._patch}
            routes |= {"read_users": self._read_users, "urgent": self._urgent}
            routes |= {"departments": self._children, "users": self._members, "freebusy": self._freebusy}
            return routes[route](seen)

    def _over_rate(self, route: str) -> bool:
        """More than `rate_limit` calls on this route within the last second (real time, like Feishu's gateway)."""
        now, calls = self.rate_clock(), self._calls[route]
        while calls and now - calls[0] >= 1.0:
            calls.popleft()
        if len(calls) >= self.rate_limit:
            return True
        calls.append(now)
        return False

    def _own(self, message_id: str) -> dict[str, Any] | None:
        return next((m for m in self.messages if m["message_id"] == message_id), None)

    def _read_users(self, seen: Seen) -> Reply:
        message_id = seen.path.split("/")[-2]
        if seen.query.get("user_id_type") not in ("open_id", "union_id", "user_id"):
            return code(230001, "Your request contains an invalid request parameter: user_id_type is required.")
        if self._own(message_id) is None:
            return code(230012, "Bot is NOT the sender of the message.")
        if self._now() - self._sent_at.get(message_id, self._now()) > 7 * 86400:
            return code(230033, "Get the reading status must be done within 7 days after the message is sent.")
        size = int(seen.query.get("page_size") or 20)
        if not 1 <= size <= 100:
            return code(230001, "Your request contains an invalid request parameter: page_size must be 1-100.")
        items = [
            {"user_id_type": "open_id", "user_id": who, "timestamp": str(at), "tenant_key": "tenant_1"}
            for who, at in self.readers.get(message_id, {}).items()
        ]
        return Reply(200, {"code": 0, "msg": "success", "data": self._page(items, {**seen.query, "page_size": size})})

    def _urgent(self, seen: Seen) -> Reply:
        message_id, mode = seen.path.split("/")[-2], seen.path.split("/")[-1].removeprefix("urgent_")
        users = (seen.body or {}).get("user_id_list") if isinstance(seen.body, dict) else None
        if mode not in ("app", "sms", "phone") or seen.query.get("user_id_type") != "open_id" or not users:
            return code(230001, "Your request contains an invalid request parameter.")
        message = self._own(message_id)
        if message is None:
            return code(230012, "Bot is NOT the sender of the message.")
        chat = message.get("receive_id") if message.get("receive_id_type") == "chat_id" else None
        allowed = self.members.get(chat) if chat else {message.get("receive_id")}
        invalid = [u for u in users if allowed is not None and u not in allowed]
        valid = [u for u in users if u not in invalid]
        if any(self.unread_urgent[u] >= 200 for u in valid):
            return code(230023, "The user has too many unread urgent messages.")
        if mode in self.urgent_quota and self.urgent_quota[mode] < len(valid):
            return code(230024, "Reach the upper limit of urgent message.")
        if mode in self.urgent_quota:
            self.urgent_quota[mode] -= len(valid)
        for user in valid:
            self.unread_urgent[user] += 1
        self.urgents.append({"message_id": message_id, "mode": mode, "user_ids": valid})
        return Reply(200, {"code": 0, "msg": "success", "data": {"invalid_user_id_list": invalid}})

    def _token(self, body: dict[str, Any]) -> Reply:
        if body.get("app_id") != self.app_id or body.get("app_secret") != self.app_secret:
            return code(10014, "app secret invalid")
        self.tokens_issued += 1
        token = f"t-fake-{self.tokens_issued}"
        self._valid.add(token)
        return Reply(200, {"code": 0, "msg": "ok", "tenant_access_token": token, "expire": 7200})

    def _message(self, seen: Seen) -> Reply:
        body = seen.body
        if refused := _too_long(seen, text=body.get("msg_type") == "text"):
            return refused
        if body.get("msg_type") == "interactive" and (refused := _card_problem(body.get("content"))):
            return refused
        uuid = body.get("uuid")
        if uuid is not None and not 1 <= len(str(uuid)) <= 50:  # "uuid: 最大长度 50 字符"
            return code(99992402, "field validation failed: uuid must be at most 50 characters")
        if (message_id := self._first(uuid)) is None:
            message_id = f"om_fake_{next(self._ids)}"
            self.messages.append(
                {**body, "receive_id_type": seen.query.get("receive_id_type"), "message_id": message_id}
            )
            self._sent_at[message_id] = self._now()
            self._keep_uuid(uuid, message_id)
        return Reply(
            200, {"code": 0, "msg": "success", "data": {"message_id": message_id, "msg_type": body.get("msg_type")}}
        )

    def _forward(self, seen: Seen) -> Reply:
        original = seen.path.split("/")[-2]
        uuid = seen.query.get("uuid")
        if uuid is not None and not 1 <= len(uuid) <= 50:
            return code(99992402, "field validation failed: uuid must be at most 50 characters")
        if (message_id := self._first(uuid)) is None:
            message_id = f"om_fake_{next(self._ids)}"
            forwarded = {
                "receive_id": (seen.body or {}).get("receive_id"),
                "receive_id_type": seen.query.get("receive_id_type"),
                "msg_type": "forward",
                "forwarded_from": original,
                "uuid": uuid,
                "message_id": message_id,
            }
            self.messages.append(forwarded)
            self._keep_uuid(uuid, message_id)
        return Reply(200, {"code": 0, "msg": "success", "data": {"message_id": message_id}})

    def _patch(self, seen: Seen) -> Reply:
        message_id = seen.path.split("/")[-1]
        found = next((m for m in self.messages if m["message_id"] == message_id), None)
        if found is None or found.get("msg_type") != "interactive":
            return code(230001, "Your request contains an invalid request parameter: the message is not a card.")
        new = (seen.body or {}).get("content")
        if refused := _too_long(seen, text=False) or _card_problem(new):
            return refused
        if not json.loads(new).get("config", {}).get("update_multi"):
            return code(230001, "Your request contains an invalid request parameter: update_multi must be true.")
        found["content"] = new
        self.patches.append({"message_id": message_id, "card": json.loads(new)})
        return Reply(200, {"code": 0, "msg": "success", "data": {}})

    @staticmethod
    def _page(items: list[Any], query: dict[str, str]) -> dict[str, Any]:
        size, start = int(query.get("page_size", 50)), int(query.get("page_token") or 0)
        chunk, more = items[start : start + size], start + size < len(items)
        return {"has_more": more, "page_token": str(start + size) if more else "", "items": chunk}

    def _children(self, seen: Seen) -> Reply:
        root = seen.path.split("/")[-2]
        found, pending = [], list(self.departments.get(root, []))
        while pending:  # fetch_child=true: the whole subtree
            department = pending.pop(0)
            found.append({"open_department_id": department, "department_id": department, "name": department})
            if seen.query.get("fetch_child") == "true":
                pending.extend(self.departments.get(department, []))
        return Reply(200, {"code": 0, "msg": "success", "data": self._page(found, seen.query)})

    def _members(self, seen: Seen) -> Reply:
        users = self.users.get(seen.query.get("department_id", ""), [])
        return Reply(200, {"code": 0, "msg": "success", "data": self._page(users, seen.query)})

    def _known(self, open_id: str) -> bool:
        return open_id in self.busy or any(u["open_id"] == open_id for users in self.users.values() for u in users)

    def _freebusy(self, seen: Seen) -> Reply:
        body = seen.body if isinstance(seen.body, dict) else {}
        if seen.query.get("user_id_type", "open_id") not in ("open_id", "union_id", "user_id"):
            return code(99992402, "field validation failed: user_id_type")
        try:
            low, high = (datetime.fromisoformat(body[name]) for name in ("time_min", "time_max"))
        except (KeyError, TypeError, ValueError):
            return code(190002, "invalid parameters in request: time_min and time_max must be RFC 3339")
        if low.tzinfo is None or high.tzinfo is None or high <= low:
            return code(190002, "invalid parameters in request: time_max must be after time_min")
        if high - low > timedelta(days=90):
            return code(190002, "invalid parameters in request: time_min to time_max is more than 90 days")
        user, room = body.get("user_id"), body.get("room_id")
        if not user and not room:
            return code(190002, "invalid parameters in request: user_id or room_id is required")
        if user and not self._known(user):  # user_id wins when both are given
            return code(190002, f"invalid parameters in request: no user {user}")
        blocks = sorted(b for b in self.busy.get(user, []) if b[0] < high and b[1] > low) if user else []
        listed = [{"start_time": a.astimezone(BEIJING).isoformat(), "end_time": b.astimezone(BEIJING).isoformat()}
                  for a, b in blocks]  # fmt: skip
        return Reply(200, {"code": 0, "msg": "success", "data": {"freebusy_list": listed}})

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw
                seen = Seen(
                    self.command,
                    parts.path,
                    {k: v[0] for k, v in parse_qs(parts.query).items()},
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                    len(raw),
                )
                with fake._lock:
                    fake.requests.append(seen)
                reply = fake._answer(seen)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.hang_up:
                    self.close_connection = True
                    return
                data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                content_type = "text/html" if isinstance(reply.body, bytes) else "application/json; charset=utf-8"
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = _serve

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


def _too_long(seen: Seen, *, text: bool) -> Reply | None:
    """im/v1 create and patch: "文本消息请求体最大不能超过150KB；卡片及富文本消息请求体最大不能超过30KB" (230025),
    on the request body as it came (KB read as 1024 bytes, the more lenient reading)."""
    if seen.size > (150 if text else 30) * 1024:
        return code(230025, "The length of the message content reaches its limit.")
    return None


PARSE_ERROR = code(230099, "Failed to create card content, ext=ErrCode: 200621; ErrMsg: parse card json err")


def _tags(node: Any) -> int:
    if isinstance(node, dict):
        return ("tag" in node) + sum(_tags(v) for v in node.values())
    return sum(_tags(v) for v in node) if isinstance(node, list) else 0


def _malformed_text(node: Any) -> bool:
    """A markdown element, or a text object (`plain_text` / `lark_md`, a div's `text`), without a string content."""
    if isinstance(node, list):
        return any(_malformed_text(v) for v in node)
    if not isinstance(node, dict):
        return False
    if node.get("tag") in ("markdown", "plain_text", "lark_md") and not isinstance(node.get("content"), str):
        return True
    text = node.get("text") if node.get("tag") == "div" else None
    if text is not None and (not isinstance(text, dict) or text.get("tag") not in ("plain_text", "lark_md")):
        return True
    return any(_malformed_text(v) for v in node.values())


def _card_problem(raw: Any) -> Reply | None:
    """Feishu's refusal of a card's JSON, or None: unparseable, a JSON 2.0 body that is not a list of tagged
    elements, a text without its required string `content`, the 1.0 `action` module, over 200 elements."""
    try:
        card = json.loads(raw)
    except (TypeError, ValueError):
        return PARSE_ERROR
    elements = (card.get("body") or {}).get("elements") if isinstance(card, dict) else None
    if card.get("schema") == "2.0" and (
        not isinstance(elements, list)
        or not all(isinstance(e, dict) and isinstance(e.get("tag"), str) for e in elements)
        or _malformed_text(elements)
    ):
        return PARSE_ERROR
    if card.get("schema") == "2.0" and '"tag": "action"' in json.dumps(card):
        return code(
            230099,
            "Failed to create card content, ext=ErrCode: 200861; ErrMsg: cards of schema V2 no longer support "
            "this capability; ErrorValue: unsupported tag action",
        )
    # Card JSON 2.0 structure: "一张卡片最多支持 200 个元素（如 tag 为 plain_text 的文本元素）或组件" (300305).
    if card.get("schema") == "2.0" and _tags(elements) > 200:
        return code(
            230099,
            "Failed to create card content, ext=ErrCode: 300305; ErrMsg: The number of card components exceeds 200",
        )
    return None


# ---- events as Feishu sends them --------------------------------------------------------------------


def encrypt(encrypt_key: str, plaintext: str) -> str:
    """What Feishu puts in `{"encrypt": ...}`: base64(IV + AES-256-CBC(sha256(key), PKCS#7(plaintext)))."""
    iv, data = os.urandom(16), plaintext.encode()
    pad = 16 - len(data) % 16
    cipher = AES.new(hashlib.sha256(encrypt_key.encode()).digest(), AES.MODE_CBC, iv)
    return base64.b64encode(iv + cipher.encrypt(data + bytes([pad]) * pad)).decode()


def signed_headers(body: bytes, encrypt_key: str, *, timestamp: int, nonce: str = "nonce-1") -> dict[str, str]:
    """X-Lark-Request-Timestamp / -Nonce / X-Lark-Signature for `body`."""
    signature = hashlib.sha256((str(timestamp) + nonce + encrypt_key).encode() + body).hexdigest()
    return {
        "X-Lark-Request-Timestamp": str(timestamp),
        "X-Lark-Request-Nonce": nonce,
        "X-Lark-Signature": signature,
        "Content-Type": "application/json",
    }


def message_event(
    *,
    event_id: str = "ev_1",
    open_id: str = "ou_zhangsan",
    text: str = "hello",
    chat_type: str = "p2p",
    chat_id: str = "oc_p2p_1",
    message_id: str = "om_in_1",
    token: str = "vtoken",
    mentions: list[dict[str, Any]] | None = None,
    parent_id: str | None = None,
    create_time_ms: int = 1773799200000,
    message_type: str = "text",
    content: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A v2 `im.message.receive_v1` event body as Feishu posts it (before encryption)."""
    message: dict[str, Any] = {
        "message_id": message_id,
        "root_id": parent_id or "",
        "parent_id": parent_id or "",
        "create_time": str(create_time_ms),
        "update_time": str(create_time_ms),
        "chat_id": chat_id,
        "chat_type": chat_type,
        "message_type": message_type,
        "content": json.dumps(content if content is not None else {"text": text}, ensure_ascii=False),
    }
    if mentions is not None:
        message["mentions"] = mentions
    return {
        "schema": "2.0",
        "header": {
            "event_id": event_id,
            "event_type": "im.message.receive_v1",
            "create_time": str(create_time_ms),
            "token": token,
            "app_id": APP_ID,
            "tenant_key": "tenant_1",
        },
        "event": {
            "sender": {
                "sender_id": {"union_id": f"on_{open_id}", "user_id": open_id.removeprefix("ou_"), "open_id": open_id},
                "sender_type": "user",
                "tenant_key": "tenant_1",
            },
            "message": message,
        },
    }


def read_event(
    *,
    message_ids: list[str],
    event_id: str = "ev_read_1",
    open_id: str = "ou_zhangsan",
    read_time_ms: int = 1773799200000,
    token: str = "vtoken",
) -> dict[str, Any]:
    """A v2 `im.message.message_read_v1` event body as Feishu posts it (a private chat's messages read)."""
    return {
        "schema": "2.0",
        "header": {
            "event_id": event_id,
            "event_type": "im.message.message_read_v1",
            "create_time": str(read_time_ms),
            "token": token,
            "app_id": APP_ID,
            "tenant_key": "tenant_1",
        },
        "event": {
            "reader": {
                "reader_id": {"union_id": f"on_{open_id}", "user_id": open_id.removeprefix("ou_"), "open_id": open_id},
                "read_time": str(read_time_ms),
                "tenant_key": "tenant_1",
            },
            "message_id_list": message_ids,
        },
    }


def mention(key: str, open_id: str, name: str, *, bot: bool = False) -> dict[str, Any]:
    """One entry of `message.mentions`."""
    return {
        "key": key,
        "id": {"union_id": f"on_{open_id}", "user_id": "" if bot else open_id.removeprefix("ou_"), "open_id": open_id},
        "name": name,
        "tenant_key": "tenant_1",
        "mentioned_type": "bot" if bot else "user",
    }
