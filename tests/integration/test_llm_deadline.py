"""DEPUTY_LLM_TIMEOUT is the whole call's deadline: connect, send, headers and the entire body."""

from __future__ import annotations

import time

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
    started = time.monotonic()
    try:
        return client.propose("hi", people=[], now="2026-03-18T10:00+08:00"), time.monotonic() - started
    finally:
        client.close()


def test_a_server_trickling_its_answer_is_cut_off_at_the_deadline(llm):
    # 1 byte every 50 ms: every read is quick (httpx's per-read timeout never fires); the whole body takes > 15 s.
    llm.script(Reply(body=proposal("tell", "p_zhangsan", "x" * 300).body, trickle=0.05))
    answer, took = _ask(llm.url, timeout=1.0)
    assert answer.status == "timeout"
    assert took < 3.0  # the deadline (1 s) plus scheduling slack, far from the trickle's 15 s


def test_a_trickled_answer_that_ends_before_the_deadline_is_read_whole(llm):
    llm.script(Reply(body=proposal("none").body, trickle=0.001))
    answer, _ = _ask(llm.url, timeout=5.0)
    assert answer.status == "ok" and answer.data["intent"] == "none"


def test_a_server_that_accepts_and_never_answers_is_a_timeout():
    silent = SilentServer().start()
    try:
        answer, took = _ask(silent.url("http", "/v1"), timeout=0.5)
    finally:
        silent.stop()
    assert answer.status == "timeout" and took < 3.0


def test_a_call_made_where_an_event_loop_already_runs_still_gets_its_answer(llm):
    # A thread that runs a loop (playwright's sync API leaves one behind; an async framework's thread) must not
    # turn every proposal into an error: asyncio.run refuses to start inside a running loop.
    import asyncio

    llm.script(Reply(body=proposal("none").body))

    async def inside() -> object:
        return _ask(llm.url, timeout=5.0)[0]

    answer = asyncio.run(inside())
    assert answer.status == "ok" and answer.data["intent"] == "none"
