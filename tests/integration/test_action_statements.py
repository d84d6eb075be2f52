"""How many SQL statements one notify costs: a count (not a timing), so a read added to the hot path shows up here."""

from action import service
from kernel.context import AppContext
from tests.integration.action_helpers import action_facts, add_memory_channels, add_person, notify
from tests.integration.sql_statements import sent

# SQLite: BEGIN IMMEDIATE, one statement for the person with the cap's count, L4's last notice, the decision the
# sandbox fence reads and the bindings, the id counter, the action row; BEGIN IMMEDIATE, the update, the id counter,
# the result fact, its person ref and three search rows. PostgreSQL: no BEGINs, the person's advisory lock, ids
# reserved in blocks, and the result fact with its person ref and search row in one statement.
MOST = {"sqlite": 12, "postgresql": 5}


def _statements_of_one_notify(ctx: AppContext, request) -> list[str]:
    with sent(ctx) as seen:
        record = service.execute(ctx, request=request)
    assert record.result == "success"
    return seen


def test_one_notify_reads_its_person_once_and_its_detail_not_at_all(ctx: AppContext):
    add_memory_channels(ctx)
    add_person(ctx)
    service.execute(ctx, request=notify(notification_type="warm_up"))  # first use: compiled statements, id rows
    seen = _statements_of_one_notify(ctx, notify(notification_type="meeting"))
    most = MOST[ctx.db.engine.dialect.name]
    assert len(seen) <= most, f"{len(seen)} statements (at most {most}):\n" + "\n".join(seen)
    assert len([s for s in seen if s.startswith("SELECT persons.")]) == 1
    assert not [s for s in seen if s.startswith("SELECT actions.result_detail")]


def test_the_result_keeps_the_politeness_keys_it_was_reserved_with(ctx: AppContext):
    add_memory_channels(ctx)
    add_person(ctx)
    record = service.execute(ctx, request=notify(notification_type="meeting"))
    detail = record.result_detail
    assert (detail["priority"], detail["proactive"], detail["solicited"], detail["reactive"]) == (
        "P2",
        True,
        False,
        False,
    )
    assert detail["target_local_time"] == "2026-03-18T10:00:00+08:00"
    [fact] = action_facts(ctx)
    assert fact.content["result_detail"] == detail
