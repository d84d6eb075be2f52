"""A signal or queued action that cannot be processed is set aside with a system fact; the ones after it still run."""

from cognitive_core import flows as core_flows
from concern import outbox
from tests.integration.story_helpers import say


def test_a_signal_that_breaks_the_core_is_set_aside_and_the_next_one_is_processed(ctx, client, team, monkeypatch):
    feishu, telegram = team
    real = core_flows._process
    calls = []

    def first_one_fails(uow, entry, hints):
        calls.append(entry.fact_id)
        if len(calls) == 1:
            raise RuntimeError("decide exploded")
        return real(uow, entry, hints)

    monkeypatch.setattr(core_flows, "_process", first_one_fails)
    say(ctx, channel="feishu", user="ou_boss", text="/concerns")
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？")
    [failure] = client.get("/v1/facts", params={"fact_type": "system"}).json()["items"]
    assert (
        failure["content"]["event"] == "signal_processing_failed" and failure["content"]["message"] == "decide exploded"
    )
    assert len(client.get("/v1/concerns").json()["items"]) == 1 and len(telegram.texts_to("tg_zs")) == 1
    assert core_flows.process_pending(ctx) == 0  # the failed one is not retried forever


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
