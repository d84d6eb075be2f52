"""Reads and urgency on Feishu: who read a message the bot sent (read_users) and making it urgent (urgent_*).

Both are Feishu's own limits apart: 50 calls a second and 1000 a minute per app; read_users only for the bot's own
messages younger than 7 days (230033 after); urgent only for the bot's own messages, at most 200 unread urgent
messages per person (230023), SMS and calls within the tenant's quota (230024).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from channels.errors import ChannelError, InvalidRequest

PAGE_SIZE = 100  # read_users' largest page
MAX_PAGES = 20  # a group of 2000 readers is as far as anyone's read is looked for
FINAL_LOOKUP = frozenset({230002, 230012, 230033})  # read_users refusals that stay refusals
# Feishu's codes for a refused urgent call or read lookup, as result_detail names them.
REASONS = {
    230002: "bot_not_in_chat",
    230012: "not_sent_by_bot",
    230023: "too_many_unread_urgent",
    230024: "urgent_quota_exhausted",
    230027: "missing_permission",
    230033: "older_than_7_days",
}


def _instant(millis: Any) -> datetime | None:
    try:
        return datetime.fromtimestamp(int(millis) / 1000, tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def _lookup(api: Any, request: Any) -> Any:
    """One page of read_users; a refusal no later lookup changes (not in the chat, not the bot's, older than 7 days)
    is permanent."""
    try:
        return api.call(
            lambda option: api.client.im.v1.message.read_users(request, option), what="im.v1.message.read_users"
        )
    except ChannelError as exc:
        if exc.code not in FINAL_LOOKUP:
            raise
        detail = {"feishu_code": exc.code}
        raise InvalidRequest(exc.message, code=REASONS[exc.code], permanent=True, detail=detail) from exc


def read_users(api: Any, message_id: str) -> dict[str, datetime]:
    """open_id → when they read it, every page of GET /open-apis/im/v1/messages/{id}/read_users."""
    from lark_oapi.api.im.v1 import ReadUsersMessageRequest

    found: dict[str, datetime] = {}
    token: str | None = None
    for _ in range(MAX_PAGES):
        builder = ReadUsersMessageRequest.builder().message_id(message_id).user_id_type("open_id").page_size(PAGE_SIZE)
        request = (builder.page_token(token) if token else builder).build()
        response = _lookup(api, request)
        data = getattr(response, "data", None)
        for item in getattr(data, "items", None) or []:
            when = _instant(getattr(item, "timestamp", None))
            if getattr(item, "user_id", None) and when is not None:
                found[str(item.user_id)] = when
        token = getattr(data, "page_token", None)
        if not getattr(data, "has_more", False) or not token:
            break
    return found


def urgent(api: Any, *, message_id: str, open_id: str, mode: str) -> None:
    """PATCH /open-apis/im/v1/messages/{id}/urgent_{mode} for one person; InvalidRequest when it did not reach them."""
    from lark_oapi.api.im.v1 import (
        UrgentAppMessageRequest,
        UrgentPhoneMessageRequest,
        UrgentReceivers,
        UrgentSmsMessageRequest,
    )

    kinds = {"app": UrgentAppMessageRequest, "sms": UrgentSmsMessageRequest, "phone": UrgentPhoneMessageRequest}
    if mode not in kinds:
        raise InvalidRequest(f"no urgent mode {mode!r}", code="urgent_mode", permanent=True)
    body = UrgentReceivers.builder().user_id_list([open_id]).build()
    request = kinds[mode].builder().message_id(message_id).user_id_type("open_id").request_body(body).build()
    call = getattr(api.client.im.v1.message, f"urgent_{mode}")
    what = f"im.v1.message.urgent_{mode}"
    try:
        response = api.call(lambda option: call(request, option), what=what)
    except ChannelError as exc:  # 230002 reads as Unreachable elsewhere: here it says only that this call failed
        reason = REASONS.get(exc.code) if isinstance(exc.code, int) else None
        if reason is None:
            raise
        raise InvalidRequest(exc.message, code=reason, permanent=True, detail={"feishu_code": exc.code}) from exc
    invalid = getattr(getattr(response, "data", None), "invalid_user_id_list", None) or []
    if open_id in invalid:  # a success for the call, not for the person: Feishu could not urge them
        raise InvalidRequest(f"{what}: {open_id} is in invalid_user_id_list", code="invalid_user_id_list")
