"""A small team for concern-engine tests: a principal, a member with a manager, a member without one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from concern import flows
from fact import decisions
from fact.decisions import DecisionKind
from tests.integration.action_helpers import add_memory_channels, add_person

NOON = datetime(2026, 3, 18, 4, 0, tzinfo=UTC)  # 12:00 Asia/Shanghai, a Wednesday


@pytest.fixture
def team(ctx, clock):
    """(feishu, telegram) memory channels; p_boss, p_wangwu (manager), p_zhangsan (his report), p_lisi (no manager)."""
    clock.set(NOON)
    feishu, telegram = add_memory_channels(ctx)
    add_person(
        ctx,
        "p_boss",
        display_name="老板",
        role="principal",
        bindings=[{"channel": "feishu", "external_user_id": "ou_boss"}],
    )
    add_person(ctx, "p_wangwu", display_name="王五", bindings=[{"channel": "feishu", "external_user_id": "ou_wangwu"}])
    add_person(
        ctx,
        "p_zhangsan",
        display_name="张三",
        aliases=["Zhang San"],
        manager_id="p_wangwu",
        bindings=[{"channel": "telegram", "external_user_id": "tg_zs", "chat_id": "tg_zs"}],
    )
    add_person(
        ctx,
        "p_lisi",
        display_name="李四",
        locale="en",
        bindings=[{"channel": "telegram", "external_user_id": "tg_ls", "chat_id": "tg_ls"}],
    )
    return feishu, telegram


def ask(ctx, target: str, question: str) -> None:
    """The boss raises a loop asking `target` `question` (its question queued in the outbox, not yet sent)."""
    with ctx.uow() as uow:
        decision_id = decisions.record(uow, kind=DecisionKind.raise_concern, rule="test", source="admin_api")
        flows.raise_(
            uow,
            originator_id="p_boss",
            target_person_id=target,
            question=question,
            priority="P1",
            decision_id=decision_id,
        )
