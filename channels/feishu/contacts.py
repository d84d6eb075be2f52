"""`deputy persons sync-feishu`: create or update persons from the Feishu contacts the app can see.

Person ids: a user already bound on feishu (by open_id) keeps their person; otherwise `p_` + a slug of the
English name, else of the user_id, else of the open_id (`Zhang San` → `p_zhangsan`). An existing person with
that id and no feishu binding is adopted; one bound to someone else gets `_<last 6 of the open_id slug>`.
Only name, aliases, the feishu binding and manager change: policies, roles and other bindings stay as they are.
Managers come from `leader_user_id` in a second pass, once everyone exists; a leader who is not synced
leaves the manager unchanged. Resigned users are skipped.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select

from kernel.errors import DeputyError
from person import service as persons
from person.models import ChannelBinding, PersonCreate

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


@dataclass
class SyncResult:
    """One user's outcome: created, updated, unchanged, skipped or error."""

    open_id: str
    person_id: str | None
    outcome: str
    message: str = ""


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
        builder = (ChildrenDepartmentRequest.builder().department_id(ROOT_DEPARTMENT).department_id_type("open_department_id")
                   .fetch_child("true").page_size(page_size))  # type: ignore[arg-type]
        return api.client.contact.v3.department.children((builder.page_token(token) if token else builder).build(), option)

    departments = [ROOT_DEPARTMENT] + [d.open_department_id for d in _pages(api, children, "contact.v3.department.children") if d.open_department_id]
    users: dict[str, FeishuUser] = {}
    for department in dict.fromkeys(departments):
        def members(token: str | None, option: Any, department: str = department) -> Any:
            builder = (FindByDepartmentUserRequest.builder().department_id(department).department_id_type("open_department_id")
                       .user_id_type("open_id").page_size(page_size))
            return api.client.contact.v3.user.find_by_department((builder.page_token(token) if token else builder).build(), option)

        for item in _pages(api, members, "contact.v3.user.find_by_department"):
            if item.open_id and item.open_id not in users:
                status = getattr(item, "status", None)
                users[item.open_id] = FeishuUser(
                    open_id=item.open_id, name=item.name or item.en_name or item.open_id, en_name=item.en_name or "",
                    nickname=item.nickname or "", user_id=item.user_id or "", leader_open_id=item.leader_user_id or None,
                    resigned=bool(getattr(status, "is_resigned", False)),
                )
    return [users[k] for k in sorted(users)]


def slug(text: str) -> str:
    """Lower-case ASCII letters, digits and underscores of `text` (accents folded), at most 48 characters."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9_]+", "", folded).strip("_")[:48]


def _candidate(user: FeishuUser) -> str:
    for source in (user.en_name, user.user_id, user.open_id):
        if slug(source):
            return "p_" + slug(source)
    return "p_" + slug(user.open_id.encode().hex())


def _bound(uow: Any) -> dict[str, str]:
    rows = uow.session.execute(select(ChannelBinding.external_user_id, ChannelBinding.person_id).where(ChannelBinding.channel == "feishu"))
    return dict(rows.all())


def _person_id(uow: Any, user: FeishuUser, bound: dict[str, str], taken: set[str]) -> str:
    if user.open_id in bound:
        return bound[user.open_id]
    candidate = _candidate(user)
    existing = persons.get(uow, person_id=candidate)
    if candidate not in taken and (existing is None or candidate not in bound.values()):
        return candidate
    suffix = slug(user.open_id)[-6:] or user.open_id.encode().hex()[-6:]
    return f"{candidate[: 50 - len(suffix) - 1]}_{suffix}"


def _desired(uow: Any, user: FeishuUser, person_id: str, manager_id: str | None) -> PersonCreate:
    """The person as it should be: the directory's fields over whatever else the person already has."""
    existing = persons.get(uow, person_id=person_id)
    names = [n.strip()[:200] for n in (user.en_name, user.nickname) if n and n.strip()]
    display_name = user.name.strip()[:200] or user.open_id
    if existing is None:
        aliases = [n for n in dict.fromkeys(names) if n != display_name]
        return PersonCreate(person_id=person_id, display_name=display_name, aliases=aliases, manager_id=manager_id,
                            channel_bindings=[{"channel": "feishu", "external_user_id": user.open_id}])
    current = persons.to_out(uow, existing).model_dump(mode="json", exclude={"created_at", "updated_at", "active"})
    bindings = current["channel_bindings"]
    if not any(b["channel"] == "feishu" and b["external_user_id"] == user.open_id for b in bindings):
        bindings.append({"channel": "feishu", "external_user_id": user.open_id, "chat_id": None, "reachable": True})
    aliases = [n for n in dict.fromkeys([*current["aliases"], *names]) if n != display_name][:50]
    return PersonCreate.model_validate({**current, "display_name": display_name, "aliases": aliases, "channel_bindings": bindings,
                                        "manager_id": manager_id if manager_id is not None else current["manager_id"]})


def _upsert(ctx: Any, user: FeishuUser, *, actor: str, person_id: str | None = None, manager_id: str | None = None,
            bound: dict[str, str] | None = None, taken: set[str] | None = None) -> SyncResult:
    try:
        with ctx.uow(actor=actor) as uow:
            pid = person_id or _person_id(uow, user, bound or {}, taken if taken is not None else set())
            _, outcome = persons.upsert(uow, data=_desired(uow, user, pid, manager_id), source="person")
        return SyncResult(user.open_id, pid, outcome)
    except ValidationError as exc:
        first = exc.errors()[0]
        return SyncResult(user.open_id, person_id, "error", f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}")
    except DeputyError as exc:
        return SyncResult(user.open_id, person_id, "error", exc.message)


def sync(ctx: Any, users: list[FeishuUser], *, actor: str = "cli", on_step: Callable[[str], None] | None = None) -> list[SyncResult]:
    """Upsert every active user (pass 1), then set managers from leaders (pass 2); one transaction per change.

    `on_step("persons" | "managers")` is called once per user and pass (2 × len(users) calls in all).
    """
    step = on_step or (lambda _: None)
    with ctx.reader() as uow:
        bound = _bound(uow)
    taken: set[str] = set()
    results: dict[str, SyncResult] = {}
    for user in users:
        if user.resigned:
            result = SyncResult(user.open_id, bound.get(user.open_id), "skipped", "resigned")
        else:
            result = _upsert(ctx, user, actor=actor, bound=bound, taken=taken)
        if result.person_id and result.outcome != "error":
            taken.add(result.person_id)
            bound[user.open_id] = result.person_id
        results[user.open_id] = result
        step("persons")
    for user in users:
        result, manager = results[user.open_id], bound.get(user.leader_open_id or "")
        if result.outcome not in ("skipped", "error") and manager is not None and manager != result.person_id:
            second = _upsert(ctx, user, actor=actor, person_id=result.person_id, manager_id=manager)
            if second.outcome == "error" or (second.outcome == "updated" and result.outcome == "unchanged"):
                results[user.open_id] = second
        step("managers")
    return list(results.values())
