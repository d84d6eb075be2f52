"""DEPUTY_LLM_TIMEOUT is the whole call's deadline: connect, send, headers and the entire body."""

from __future__ import annotations

import pytest

from cognitive_core.llm.client import OpenAICompatibleLLM
from tests.fakes.llm_server import FakeLLM, Reply, proposal
from tests.fakes.silent_server import SilentServer


@pytest.fixture
def llm():
    server = FakeLLM().start()
    yield server
    server.stop()


def _ask(url: str, timeout: float):
    client = OpenAICompatibleLLM(url, api_key="sk-test", model="m", timeout=timeout)
    try:
        return client.propose("hi", people=[], now="2026-03-18T10:00+08:00")
    finally:
        client.close()


def test_a_server_trickling_its_answer_is_cut_off_at_the_deadline(llm):
    # 1 byte every 50 ms: every read is quick (httpx's per-read timeout never fires); the whole body takes > 15 s.
    llm.script(Reply(body=proposal("tell", "p_zhangsan", "x" * 300).body, trickle=0.05))
    answer = _ask(llm.url, timeout=1.0)
    assert answer.status == "timeout"
    # The client hung up mid-body: it did not sit through the trickle and then call the whole answer late.
    assert llm.body_ended.wait(10)
    written, length = llm.bodies[0]
    assert written < length


def test_a_trickled_answer_that_ends_before_the_deadline_is_read_whole(llm):
    llm.script(Reply(body=proposal("none").body, trickle=0.001))
    answer = _ask(llm.url, timeout=5.0)
    assert answer.status == "ok" and answer.data["intent"] == "none"


def test_a_server_that_accepts_and_never_answers_is_a_timeout():
    silent = SilentServer().start()
    try:
        answer = _ask(silent.url("http", "/v1"), timeout=0.5)
    finally:
        silent.stop()
    assert answer.status == "timeout"


def test_a_call_made_where_an_event_loop_already_runs_still_gets_its_answer(llm):
    # A thread that runs a loop (playwright's sync API leaves one behind; an async framework's thread) must not
    # turn every proposal into an error: asyncio.run refuses to start inside a running loop.
    import asyncio
    import concurrent.futures

    llm.script(Reply(body=proposal("none").body))

    async def inside() -> object:
        return _ask(llm.url, timeout=5.0)

    # The test's own loop runs in a fresh thread: this thread may already hold one left by an earlier test.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        answer = pool.submit(asyncio.run, inside()).result()
    assert answer.status == "ok" and answer.data["intent"] == "none"
