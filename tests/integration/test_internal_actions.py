"""query and internal_update run in-process (records say channel `internal`), with the fact exceptions of §4.4."""

from action import service
from action.models import ActionRequest
from tests.integration.action_helpers import action_facts, add_person


def internal(action_type, operation, **kw):
    return ActionRequest(action_type=action_type, decision_ref="dec_20260318_001", operation=operation, **kw)


def test_query_reads_the_fact_log_and_writes_a_fact(ctx):
    add_person(ctx)
    record = service.execute(ctx, request=internal("query", {"name": "facts", "person_id": "p_zhangsan"}))
    assert record.result == "success" and record.channel == "internal"
    assert record.result_detail["output"]["items"][0]["fact_type"] == "person_changed"
    assert [f.content["action_id"] for f in action_facts(ctx)] == [record.action_id]


def test_query_only_for_the_current_reply_writes_no_fact(ctx):
    record = service.execute(ctx, request=internal("query", {"name": "facts"}, record_fact=False))
    assert record.result == "success" and action_facts(ctx) == []


def test_internal_update_recorded_by_its_truth_source_needs_no_action_result(ctx, client):
    add_person(ctx)
    op = {
        "name": "person.interaction_policy",
        "person_id": "p_zhangsan",
        "patch": {"paused_until": "2026-03-21T10:00:00+08:00"},
    }
    record = service.execute(ctx, request=internal("internal_update", op, target_person_id="p_zhangsan"))
    assert record.result == "success"
    assert record.result_detail["output"]["recorded_fact_id"].startswith("fact_")
    assert action_facts(ctx) == []
    policy = client.get("/v1/persons/p_zhangsan/interaction_policy").json()
    assert policy["paused_until"] == "2026-03-21T10:00:00+08:00"


def test_failed_internal_update_changes_nothing_and_is_recorded(ctx, client):
    add_person(ctx)
    op = {
        "name": "person.interaction_policy",
        "person_id": "p_zhangsan",
        "patch": {"max_proactive_contacts_per_day": 500},
    }
    record = service.execute(ctx, request=internal("internal_update", op))
    assert record.result == "failed" and record.result_detail["error"] == "invalid_request"
    assert client.get("/v1/persons/p_zhangsan/interaction_policy").json()["max_proactive_contacts_per_day"] == 5
    assert [f.content["result"] for f in action_facts(ctx)] == ["failed"]


def test_unknown_operation_fails(ctx):
    record = service.execute(ctx, request=internal("query", {"name": "launch_rockets"}))
    assert record.result == "failed" and record.result_detail["code"] == "unknown_operation"
