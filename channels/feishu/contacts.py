"""The Feishu contact directory the app can see: every user of every department, as plain records.

The person layer turns them into persons (`person.directory.sync`); this module only reads Feishu.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

PAGE_SIZE = 50
ROOT_DEPARTMENT = "0"


@dataclass(frozen=True)
class FeishuUser:
    """The directory fields the sync uses."""

    open_id: str
    name: str
    en_name: str = ""
    nickname: str = ""
    user_id: str = ""
    leader_open_id: str | None = None
    resigned: bool = False


def _pages(api: Any, fetch: Callable[[str | None, Any], Any], what: str) -> Iterator[Any]:
    """Every item of a paged contact API, following page_token."""
    token: str | None = None
    while True:
        response = api.call(functools.partial(fetch, token), what=what)
        data = response.data
        yield from (data.items or []) if data else []
        token = getattr(data, "page_token", None) if data else None
        if not (data and data.has_more and token):
            return


def fetch_users(api: Any, *, page_size: int = PAGE_SIZE) -> list[FeishuUser]:
    """Users of the root department and of every department under it, each once, ordered by open_id."""
    from lark_oapi.api.contact.v3 import ChildrenDepartmentRequest, FindByDepartmentUserRequest

    def children(token: str | None, option: Any) -> Any:
        # fetch_child as the text "true": the SDK would send str(True), "True"
        builder = (
            ChildrenDepartmentRequest.builder()
            .department_id(ROOT_DEPARTMENT)
            .department_id_type("open_department_id")
            .fetch_child("true")
            .page_size(page_size)
        )  # type: ignore[arg-type]
        return api.client.contact.v3.department.children(
            (builder.page_token(token) if token else builder).build(), option
        )

    departments = [ROOT_DEPARTMENT] + [
        d.open_department_id for d in _pages(api, children, "contact.v3.department.children") if d.open_department_id
    ]
    users: dict[str, FeishuUser] = {}
    for department in dict.fromkeys(departments):

        def members(token: str | None, option: Any, department: str = department) -> Any:
            builder = (
                FindByDepartmentUserRequest.builder()
                .department_id(department)
                .department_id_type("open_department_id")
                .user_id_type("open_id")
                .page_size(page_size)
            )
            return api.client.contact.v3.user.find_by_department(
                (builder.page_token(token) if token else builder).build(), option
            )

        for item in _pages(api, members, "contact.v3.user.find_by_department"):
            if item.open_id and item.open_id not in users:
                status = getattr(item, "status", None)
                users[item.open_id] = FeishuUser(
                    open_id=item.open_id,
                    name=item.name or item.en_name or item.open_id,
                    en_name=item.en_name or "",
                    nickname=item.nickname or "",
                    user_id=item.user_id or "",
                    leader_open_id=item.leader_user_id or None,
                    resigned=bool(getattr(status, "is_resigned", False)),
                )
    return [users[k] for k in sorted(users)]
