"""One-time bind codes: issue over the API, redeem by chatting `/start <code>` or `bind <code>` to the bot."""

from datetime import timedelta

from person.bind_codes import ALPHABET, CODE_LENGTH
from tests.integration.story_helpers import say


def _issue(client, person_id="p_lisi"):
    response = client.post(f"/v1/persons/{person_id}/bind_codes")
    assert response.status_code == 201
    return response.json()["code"]


def _bindings(client, person_id="p_lisi"):
    return {
        (b["channel"], b["external_user_id"]) for b in client.get(f"/v1/persons/{person_id}").json()["channel_bindings"]
    }


def test_a_code_binds_the_chat_that_sends_it_and_is_recorded(ctx, client, team):
    feishu, _ = team
    code = _issue(client)
    assert len(code) == CODE_LENGTH >= 8 and set(code) <= set(ALPHABET) and len(ALPHABET) == 32
    say(ctx, channel="feishu", user="ou_new_lisi", text=f"bind {code}")
    assert ("feishu", "ou_new_lisi") in _bindings(client)
    changes = [
        f["content"]["change"]
        for f in client.get("/v1/facts", params={"fact_type": "person_changed", "person_id": "p_lisi"}).json()["items"]
    ]
    assert changes[:2] == ["bindings_changed", "bind_code_issued"]
    assert feishu.texts_to("ou_new_lisi") == ["You're linked, 李四!"]


def test_telegram_start_with_a_code_binds_too(ctx, client, team):
    code = _issue(client)
    say(ctx, channel="telegram", user="tg_new", text=f"/start {code.lower()}")
    assert ("telegram", "tg_new") in _bindings(client)


def test_a_code_works_once(ctx, client, team):
    code = _issue(client)
    say(ctx, channel="feishu", user="ou_a", text=f"bind {code}")
    say(ctx, channel="feishu", user="ou_b", text=f"bind {code}")
    assert ("feishu", "ou_b") not in _bindings(client)


def test_a_code_expires_after_24_hours(ctx, clock, client, team):
    code = _issue(client)
    clock.advance(timedelta(hours=24))
    say(ctx, channel="feishu", user="ou_late", text=f"bind {code}")
    assert ("feishu", "ou_late") not in _bindings(client)


def test_five_wrong_codes_in_an_hour_lock_the_sender_out(ctx, clock, client, team):
    code = _issue(client)
    for i in range(5):
        say(ctx, channel="feishu", user="ou_guess", text=f"bind WRONGCODE{i}")
    say(ctx, channel="feishu", user="ou_guess", text=f"bind {code}")
    assert ("feishu", "ou_guess") not in _bindings(client)
    clock.advance(timedelta(hours=1, seconds=1))
    say(ctx, channel="feishu", user="ou_guess", text=f"bind {code}")
    assert ("feishu", "ou_guess") in _bindings(client)


def test_issuing_needs_an_admin_and_an_existing_person(client, team, viewer_headers):
    assert client.post("/v1/persons/p_ghost/bind_codes").status_code == 404
    assert client.post("/v1/persons/p_lisi/bind_codes", headers=viewer_headers).status_code == 403
