"""Bad bytes never get in by any door, on both databases: one screening (kernel.limits) refuses U+0000 and lone
surrogates at every door, and the fact log keeps text that reached it anyway, made storable, instead of failing."""

from __future__ import annotations

import pytest

from fact import service as facts
from kernel.limits import REPLACEMENT, bad_text, storable, text_problem

# Every other control character both databases store and read back unchanged: refusing them would refuse tabs.
CONTROLS = "".join(chr(c) for c in [*range(1, 32), 0x7F, *range(0x80, 0xA0)])


def _append(ctx, content: dict):
    with ctx.uow(actor="test") as uow:
        fact, _ = facts.append(uow, fact_type="system", source="perception", content=content)
    with ctx.reader() as uow:
        return facts.get(uow, fact_id=fact.fact_id).content


@pytest.mark.parametrize("bad", ["a\x00b", "a\ud800b", "a\udfffb"], ids=["nul", "high-surrogate", "low-surrogate"])
def test_unstorable_text_reaching_the_log_is_kept_with_a_replacement_character(ctx, bad):
    stored = _append(ctx, {"event": "x", "nested": [{"text": bad, bad: 1}]})
    assert stored == {"event": "x", "nested": [{"text": f"a{REPLACEMENT}b", f"a{REPLACEMENT}b": 1}]}


def test_other_control_characters_are_stored_and_read_back_unchanged(ctx):
    assert text_problem(CONTROLS) is None
    assert _append(ctx, {"event": "x", "text": CONTROLS, CONTROLS: CONTROLS}) == {
        "event": "x",
        "text": CONTROLS,
        CONTROLS: CONTROLS,
    }


def test_a_surrogate_pair_is_one_character_and_stays():
    assert text_problem("👍") is None and storable("👍") == "👍"
    assert bad_text({"a": ["ok", {"b": "x\x00"}]}) == ("a.1.b", "text must not contain NUL characters (U+0000)")


def test_a_signal_holding_nul_is_refused_with_the_field_named_and_nothing_is_written(client):
    before = client.get("/v1/facts").json()["items"]
    answer = client.post("/v1/signals", json={"source": "ci", "text": "a\u0000b"})
    assert answer.status_code in (400, 422) and "U+0000" in answer.text
    assert client.get("/v1/facts").json()["items"] == before
