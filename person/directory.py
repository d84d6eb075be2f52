"""Persons from a platform's contact directory (`deputy persons sync --channel <name>`): upsert, managers from leaders.

Person ids: a user already bound on that channel keeps their person; otherwise `p_` + a slug of the English
name, else of the user_id, else of the external id (`Zhang San` → `p_zhangsan`). An existing person with
that id is adopted when it is not bound to another user of the channel; otherwise a suffix of the external
id keeps the ids apart. What admins set (role, policy, other bindings) is kept; the directory's names,
the binding and the manager are brought up to date.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select

from kernel.errors import DeputyError
from person import service as persons
from person.models import ChannelBinding, PersonCreate


@dataclass(frozen=True)
class DirectoryUser:
    """One user of a platform's directory, as the sync needs it."""

    external_id: str
    name: str
    en_name: str = ""
    nickname: str = ""
    user_id: str = ""
    leader_external_id: str | None = None
    resigned: bool = False


@dataclass
class SyncResult:
    """One user's outcome: created, updated, unchanged, skipped or error."""

    external_id: str
    person_id: str | None
    outcome: str
    message: str = ""


def slug(text: str) -> str:
    """Lower-case ASCII letters, digits and underscores of `text` (accents folded), at most 48 characters."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9_]+", "", folded).strip("_")[:48]


def _candidate(user: DirectoryUser) -> str:
    for source in (user.en_name, user.user_id, user.external_id):
        if slug(source):
            return "p_" + slug(source)
    return "p_" + slug(user.external_id.encode().hex())


def _bound(uow: Any, channel: str) -> dict[str, str]:
    rows = uow.session.execute(
        select(ChannelBinding.external_user_id, ChannelBinding.person_id).where(ChannelBinding.channel == channel)
    )
    return dict(rows.all())


def _person_id(uow: Any, user: DirectoryUser, bound: dict[str, str], taken: set[str]) -> str:
    if user.external_id in bound:
        return bound[user.external_id]
    candidate = _candidate(user)
    existing = persons.get(uow, person_id=candidate)
    if candidate not in taken and (existing is None or candidate not in bound.values()):
        return candidate
    suffix = slug(user.external_id)[-6:] or user.external_id.encode().hex()[-6:]
    return f"{candidate[: 50 - len(suffix) - 1]}_{suffix}"


def _desired(uow: Any, user: DirectoryUser, person_id: str, manager_id: str | None, channel: str) -> PersonCreate:
    """The person as it should be: the directory's fields over whatever else the person already has."""
    existing = persons.get(uow, person_id=person_id)
    names = [n.strip()[:200] for n in (user.en_name, user.nickname) if n and n.strip()]
    display_name = user.name.strip()[:200] or user.external_id
    if existing is None:
        aliases = [n for n in dict.fromkeys(names) if n != display_name]
        return PersonCreate(
            person_id=person_id,
            display_name=display_name,
            aliases=aliases,
            manager_id=manager_id,
            channel_bindings=[{"channel": channel, "external_user_id": user.external_id}],
        )
    current = persons.to_out(uow, existing).model_dump(mode="json", exclude={"created_at", "updated_at", "active"})
    bindings = current["channel_bindings"]
    if not any(b["channel"] == channel and b["external_user_id"] == user.external_id for b in bindings):
        bindings.append({"channel": channel, "external_user_id": user.external_id, "chat_id": None, "reachable": True})
    aliases = [n for n in dict.fromkeys([*current["aliases"], *names]) if n != display_name][:50]
    return PersonCreate.model_validate(
        {
            **current,
            "display_name": display_name,
            "aliases": aliases,
            "channel_bindings": bindings,
            "manager_id": manager_id if manager_id is not None else current["manager_id"],
        }
    )


def _upsert(
    ctx: Any,
    user: DirectoryUser,
    *,
    channel: str,
    actor: str,
    person_id: str | None = None,
    manager_id: str | None = None,
    bound: dict[str, str] | None = None,
    taken: set[str] | None = None,
) -> SyncResult:
    try:
        with ctx.uow(actor=actor) as uow:
            pid = person_id or _person_id(uow, user, bound or {}, taken if taken is not None else set())
            _, outcome = persons.upsert(uow, data=_desired(uow, user, pid, manager_id, channel), source="person")
        return SyncResult(user.external_id, pid, outcome)
    except ValidationError as exc:
        first = exc.errors()[0]
        return SyncResult(
            user.external_id, person_id, "error", f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
        )
    except DeputyError as exc:
        return SyncResult(user.external_id, person_id, "error", exc.message)


def sync(
    ctx: Any,
    users: list[DirectoryUser],
    *,
    channel: str,
    actor: str = "cli",
    on_step: Callable[[str], None] | None = None,
) -> list[SyncResult]:
    """Upsert every active user (pass 1), then set managers from leaders (pass 2); one transaction per change.

    `on_step("persons" | "managers")` is called once per user and pass (2 × len(users) calls in all).
    """
    step = on_step or (lambda _: None)
    with ctx.reader() as uow:
        bound = _bound(uow, channel)
    taken: set[str] = set()
    results: dict[str, SyncResult] = {}
    for user in users:
        if user.resigned:
            result = SyncResult(user.external_id, bound.get(user.external_id), "skipped", "resigned")
        else:
            result = _upsert(ctx, user, channel=channel, actor=actor, bound=bound, taken=taken)
        if result.person_id and result.outcome != "error":
            taken.add(result.person_id)
            bound[user.external_id] = result.person_id
        results[user.external_id] = result
        step("persons")
    for user in users:
        result, manager = results[user.external_id], bound.get(user.leader_external_id or "")
        if result.outcome not in ("skipped", "error") and manager is not None and manager != result.person_id:
            second = _upsert(ctx, user, channel=channel, actor=actor, person_id=result.person_id, manager_id=manager)
            if second.outcome == "error" or (second.outcome == "updated" and result.outcome == "unchanged"):
                results[user.external_id] = second
        step("managers")
    return list(results.values())
