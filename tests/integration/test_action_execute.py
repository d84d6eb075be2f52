"""The action layer end to end on a real database: layers, channels, records and facts."""

from datetime import timedelta

import pytest
from pydantic import ValidationError

from action import service
from action.models import RECORD_FIELDS, ActionRequest
from channels.errors import InvalidRequest, RateLimited, Transient, Unreachable
from tests.integration.action_helpers import (
    action_facts,
    action_rows,
    add_concern,
    add_memory_channels,
    add_person,
    ask,
    notify,
    opening,
    state_of,
)


@pytest.fixture
def chans(ctx):
    return add_memory_channels(ctx)


def test_notify_succeeds_on_the_preferred_channel_and_writes_one_fact(ctx, chans):
    feishu, telegram = chans
    add_person(ctx, policy={"preferred_channel": "telegram"})
    record = service.execute(ctx, request=notify())
    assert record.result == "success" and record.channel == "telegram"
    assert telegram.texts_to("tg_p_zhangsan") == ["明早10点开会"] and feishu.sent == []
    assert record.action_id.startswith("act_20260318_")
    [fact] = action_facts(ctx)
    assert set(fact.content) == set(RECORD_FIELDS)
    assert fact.content == record.model_dump(mode="json")
    assert (
        fact.source == "action_layer" and fact.person_refs == ["p_zhangsan"] and fact.causation_id == "dec_20260318_001"
    )


def test_the_action_id_is_the_platform_idempotency_key(ctx, chans):
    feishu, _ = chans
    add_person(ctx)
    record = service.execute(ctx, request=notify())
    assert feishu.sent[0].message.idempotency_key == record.action_id


def test_an_action_without_decision_ref_is_refused():
    with pytest.raises(ValidationError, match="decision_ref"):
        ActionRequest(action_type="notify", decision_ref="", target_person_id="p_x", text="hi")
    with pytest.raises(ValidationError, match="decision_ref"):
        ActionRequest(action_type="notify", decision_ref="whatever", target_person_id="p_x", text="hi")


def test_fallback_records_every_attempt_in_order(ctx, chans):
    feishu, telegram = chans
    add_person(ctx, policy={"preferred_channel": "telegram"})
    telegram.fail_with("tg_p_zhangsan", RateLimited("Too Many Requests", code=429, retry_after=7))
    record = service.execute(ctx, request=notify())
    assert record.result == "success" and record.channel == "feishu"
    attempts = record.result_detail["attempts"]
    assert [a["channel"] for a in attempts] == ["telegram", "feishu"]
    assert attempts[0]["error"] == "rate_limited" and attempts[0]["retry_after"] == 7
    assert attempts[1]["result"] == "success" and attempts[1]["message_id"] == record.result_detail["message_id"]


def test_all_channels_failing_is_failed_with_every_attempt(ctx, chans):
    feishu, telegram = chans
    add_person(ctx)
    feishu.fail_with("ou_p_zhangsan", Transient("502 Bad Gateway", code=502))
    telegram.fail_with("tg_p_zhangsan", InvalidRequest("can't parse entities", code=400))
    record = service.execute(ctx, request=notify())
    assert record.result == "failed" and record.result_detail["error"] == "all_channels_failed"
    assert [a["error"] for a in record.result_detail["attempts"]] == ["transient", "invalid_request"]
    assert len(action_facts(ctx)) == 1


def test_permanently_unreachable_binding_is_marked_with_a_person_changed_fact(ctx, chans, client):
    feishu, telegram = chans
    add_person(ctx, policy={"preferred_channel": "telegram"})
    telegram.fail_with("tg_p_zhangsan", Unreachable("Forbidden: bot was blocked by the user", code=403, permanent=True))
    record = service.execute(ctx, request=notify())
    assert record.result == "success" and record.channel == "feishu"
    person = client.get("/v1/persons/p_zhangsan").json()
    assert {b["channel"]: b["reachable"] for b in person["channel_bindings"]} == {"feishu": True, "telegram": False}
    changes = client.get("/v1/facts", params={"fact_type": "person_changed", "person_id": "p_zhangsan"}).json()["items"]
    assert changes[0]["content"]["change"] == "binding_unreachable" and changes[0]["content"]["channel"] == "telegram"
    # Next time the unreachable binding is not even tried.
    again = service.execute(ctx, request=notify(notification_type="other"))
    assert [a["channel"] for a in again.result_detail["attempts"]] == ["feishu"]


def test_temporary_unreachability_does_not_mark_the_binding(ctx, chans, client):
    _, telegram = chans
    add_person(ctx, policy={"preferred_channel": "telegram"})
    telegram.fail_with("tg_p_zhangsan", Unreachable("connection refused"))
    service.execute(ctx, request=notify())
    bindings = client.get("/v1/persons/p_zhangsan").json()["channel_bindings"]
    assert all(b["reachable"] for b in bindings)


def test_unknown_target_fails_with_a_fact(ctx, chans):
    record = service.execute(ctx, request=notify("p_nobody"))
    assert record.result == "failed" and record.result_detail["error"] == "target_not_found"
    assert [f.content["action_id"] for f in action_facts(ctx)] == [record.action_id]


def test_person_without_reachable_binding_fails(ctx, chans):
    add_person(ctx, bindings=[{"channel": "feishu", "external_user_id": "ou_x", "reachable": False}])
    record = service.execute(ctx, request=notify())
    assert record.result == "failed" and record.result_detail["error"] == "no_reachable_binding"


def test_blocked_action_is_recorded_with_layer_and_reason_and_sends_nothing(ctx, chans):
    feishu, telegram = chans
    add_person(ctx, policy={"allow_proactive_ping": False})
    record = service.execute(ctx, request=notify())
    assert record.result == "blocked"
    assert record.result_detail["blocked_by"] == "L1:proactive_disabled" and record.result_detail["reason"]
    assert feishu.sent == telegram.sent == []
    assert action_facts(ctx)[0].content["result"] == "blocked"


def test_reactive_reply_skips_l1_and_l4_and_is_still_recorded(ctx, chans, clock):
    add_person(ctx, policy={"allow_proactive_ping": False, "max_proactive_contacts_per_day": 0})
    record = service.execute(ctx, request=notify(reactive=True, notification_type="task_overdue"))
    again = service.execute(ctx, request=notify(reactive=True, notification_type="task_overdue"))
    assert record.result == again.result == "success"
    assert len(action_facts(ctx)) == 2


def test_reactive_replies_do_not_count_towards_the_daily_cap(ctx, chans):
    add_person(ctx, policy={"max_proactive_contacts_per_day": 1})
    service.execute(ctx, request=notify(reactive=True))
    assert service.execute(ctx, request=notify()).result == "success"
    assert service.execute(ctx, request=notify(notification_type="x")).result_detail["blocked_by"] == "L1:daily_cap"


def test_concern_follow_up_limits_run_against_the_ledger(ctx, chans, clock):
    add_person(ctx)
    add_concern(ctx, "con_20260318_001")
    assert service.execute(ctx, request=ask("con_20260318_001")).result == "success"
    early = service.execute(
        ctx, request=ask("con_20260318_001", follow_up=True), concern_state=state_of("con_20260318_001")
    )
    assert early.result_detail["blocked_by"] == "L2:follow_up_interval"
    clock.advance(timedelta(hours=4))
    assert (
        service.execute(
            ctx, request=ask("con_20260318_001", follow_up=True), concern_state=state_of("con_20260318_001")
        ).result
        == "success"
    )
    third = service.execute(ctx, request=ask("con_20260318_001"))
    assert third.result_detail["blocked_by"] == "L3:concern_contact_limit"


def test_five_other_active_concerns_on_the_person_block_a_sixth(ctx, chans):
    add_person(ctx)
    for i in range(5):
        add_concern(ctx, f"con_20260318_00{i + 1}")
    record = opening(ctx, "con_20260318_006")
    assert record.result == "blocked" and record.result_detail["blocked_by"] == "L2:person_concern_limit"


def test_resolved_concerns_do_not_count_towards_the_limits(ctx, chans):
    add_person(ctx)
    for i in range(4):
        add_concern(ctx, f"con_20260318_00{i + 1}")
    add_concern(ctx, "con_20260318_005", state="resolved")
    assert opening(ctx, "con_20260318_006") is None


def test_global_concern_limit_counts_every_target(ctx, chans):
    ctx.settings.max_active_concerns = 3
    add_person(ctx)
    add_person(ctx, "p_lisi")
    for i, target in enumerate(["p_lisi", "p_lisi", "p_zhangsan"]):
        add_concern(ctx, f"con_20260318_00{i + 1}", target=target)
    assert opening(ctx, "con_20260318_004").result_detail["blocked_by"] == "L2:global_concern_limit"


def test_cooldown_counts_only_the_same_type(ctx, chans, clock):
    add_person(ctx)
    assert service.execute(ctx, request=notify(notification_type="task_overdue")).result == "success"
    assert (
        service.execute(ctx, request=notify(notification_type="task_overdue")).result_detail["blocked_by"]
        == "L4:cooldown"
    )
    assert service.execute(ctx, request=notify(notification_type="daily_brief")).result == "success"
    clock.advance(timedelta(hours=4))
    assert service.execute(ctx, request=notify(notification_type="task_overdue")).result == "success"


def test_every_action_row_is_final_after_execute(ctx, chans):
    add_person(ctx)
    for _ in range(3):
        service.execute(ctx, request=notify())
    assert {r.result for r in action_rows(ctx)} <= {"success", "blocked", "failed"}
