"""What the core reads about the loops of whoever wrote: every part in one statement beside the "Not me" presses."""

from __future__ import annotations

from datetime import timedelta

from app.pipeline import tick
from concern.reads import Loops, loops_of
from tests.integration.action_helpers import add_person
from tests.integration.sql_statements import sent
from tests.integration.story_helpers import say

H = timedelta(hours=1)


def _read(ctx, person_id: str, *, principal: bool = False) -> tuple[Loops, list[str]]:
    with sent(ctx) as seen, ctx.reader() as uow:
        loops = loops_of(uow, person_id=person_id, principal=principal)
    return loops, [s for s in seen if not s.startswith(("BEGIN", "COMMIT", "ROLLBACK"))]


def _climbed(ctx, clock) -> None:
    """老板 asks 张三 (P0) and 李四; nobody answers 张三: escalated to 王五, repeated, then up to 赵六."""
    add_person(ctx, "p_zhaoliu", display_name="赵六", bindings=[{"channel": "feishu", "external_user_id": "ou_zl"}])
    with ctx.uow(actor="test") as uow:
        from person.models import Person

        uow.session.get(Person, "p_wangwu").manager_id = "p_zhaoliu"
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P0 提测什么时候能给？")
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_lisi 周报写完了吗？")
    for _ in range(4):
        clock.advance(H)
        tick(ctx)


def test_each_person_sees_the_loops_they_are_part_of(ctx, clock, team):
    _climbed(ctx, clock)
    boss, _ = _read(ctx, "p_boss", principal=True)
    assert [(target, question) for _, target, question in boss.open_asks] == [
        ("p_zhangsan", "提测什么时候能给？"),
        ("p_lisi", "周报写完了吗？"),
    ]
    assert boss.waiting == () and boss.awaiting_name == ()
    zhangsan, _ = _read(ctx, "p_zhangsan")
    assert [(w.role, w.question) for w in zhangsan.waiting] == [("target", "提测什么时候能给？")]
    for earlier_or_now in ("p_wangwu", "p_zhaoliu"):  # reached at an earlier level, or now: either answer resolves
        loops, _ = _read(ctx, earlier_or_now)
        assert [(w.role, w.originator_id) for w in loops.waiting] == [("escalation", "p_boss")]
    lisi, _ = _read(ctx, "p_lisi")
    assert [w.question for w in lisi.waiting] == ["周报写完了吗？"]


def test_the_loops_are_read_in_two_statements(ctx, clock, team):
    _climbed(ctx, clock)
    _, for_principal = _read(ctx, "p_boss", principal=True)
    _, for_member = _read(ctx, "p_wangwu")
    assert len(for_principal) == 2, for_principal  # the "Not me" presses, then every loop by the person's part
    assert len(for_member) == 2, for_member
