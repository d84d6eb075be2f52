"""A signal or queued action that cannot be processed is set aside with a system fact; the ones after it still run."""

from app.pipeline import tick
from cognitive_core import inbox as core_inbox
from concern.outbox import drain as outbox
from tests.integration.story_helpers import say


def test_a_signal_that_breaks_the_core_is_set_aside_and_the_next_one_is_processed(ctx, client, team, monkeypatch):
    feishu, telegram = team
    real = core_inbox._process
    calls = []

    def first_one_fails(uow, entry, *args):
        calls.append(entry.fact_id)
        if len(calls) == 1:
            raise RuntimeError("decide exploded")
        return real(uow, entry, *args)

    monkeypatch.setattr(core_inbox, "_process", first_one_fails)
    say(ctx, channel="feishu", user="ou_boss", text="/concerns")
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？")
    [failure] = client.get("/v1/facts", params={"fact_type": "system"}).json()["items"]
    assert (
        failure["content"]["event"] == "signal_processing_failed" and failure["content"]["message"] == "decide exploded"
    )
    assert len(client.get("/v1/concerns").json()["items"]) == 1 and len(telegram.texts_to("tg_zs")) == 1
    assert core_inbox.process_pending(ctx) == 0  # the failed one is not retried forever


def test_a_signal_that_breaks_the_core_in_a_batch_is_set_aside_alone(ctx, client, team, monkeypatch):
    feishu, telegram = team
    real = core_inbox._process

    def the_ask_fails(uow, entry, *args):
        if entry.fact_id == ask:
            raise RuntimeError("decide exploded")
        return real(uow, entry, *args)

    monkeypatch.setattr(core_inbox, "_process", the_ask_fails)
    before = say(ctx, channel="feishu", user="ou_boss", text="/concerns", process=False)
    ask = say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？", process=False)
    after = say(ctx, channel="feishu", user="ou_boss", text="/did", process=False)
    assert core_inbox.process_pending(ctx) == 3  # one pass: the batch fails, then each signal on its own
    [failure] = client.get("/v1/facts", params={"fact_type": "system"}).json()["items"]
    assert failure["content"]["fact_id"] == ask and failure["content"]["event"] == "signal_processing_failed"
    decided = {
        f["content"]["inputs"][0] for f in client.get("/v1/facts", params={"fact_type": "decision"}).json()["items"]
    }
    assert {before, after} <= decided and ask not in decided
    assert core_inbox.process_pending(ctx) == 0


def test_a_queued_action_that_breaks_is_set_aside_and_the_queue_moves_on(ctx, client, team, monkeypatch):
    feishu, telegram = team
    real = outbox.run

    def reply_fails(ctx_, entry):
        if entry.purpose == "reply":
            raise RuntimeError("handler bug")
        return real(ctx_, entry)

    monkeypatch.setattr(outbox, "run", reply_fails)
    say(ctx, channel="feishu", user="ou_boss", text="/help")
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？")
    events = [f["content"]["event"] for f in client.get("/v1/facts", params={"fact_type": "system"}).json()["items"]]
    assert events and set(events) == {"outbox_entry_failed"}
    assert len(telegram.texts_to("tg_zs")) == 1
    assert outbox.drain(ctx) == 0


def test_a_result_handler_that_breaks_keeps_the_sends_outcome_and_sets_the_entry_aside(ctx, client, team, monkeypatch):
    from concern.outbox import results

    _, telegram = team

    def handler_bug(*args):
        raise RuntimeError("result handler bug")

    monkeypatch.setitem(results.PURPOSES, results.Purpose.question, results.Declared(handler_bug, versioned=True))
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？")
    assert len(telegram.texts_to("tg_zs")) == 1  # sent once, never again
    [sent] = [a for a in client.get("/v1/actions").json()["items"] if a["target_person_id"] == "p_zhangsan"]
    assert sent["result"] == "success"  # the outcome is recorded although applying it failed
    results_facts = client.get("/v1/facts", params={"fact_type": "action_result"}).json()["items"]
    assert sent["action_id"] in {f["content"]["action_id"] for f in results_facts}
    [failure] = client.get("/v1/facts", params={"fact_type": "system"}).json()["items"]
    assert (
        failure["content"]["event"] == "outbox_entry_failed" and failure["content"]["message"] == "result handler bug"
    )
    tick(ctx)
    assert len(telegram.texts_to("tg_zs")) == 1
