"""The core keeps the people in a per-process copy: read once, reloaded after any person changes, never stale."""

from app.pipeline import tick
from cognitive_core import inbox as core_inbox
from tests.integration.action_helpers import add_person
from tests.integration.story_helpers import say


def _asked(client, target: str) -> list[dict]:
    return [c for c in client.get("/v1/concerns").json()["items"] if c["target_person_id"] == target]


def test_the_directory_is_read_once_not_for_every_signal(ctx, client, team):
    say(ctx, channel="feishu", user="ou_boss", text="/concerns")
    reloads = core_inbox.people_cache(ctx).reloads
    for _ in range(5):
        say(ctx, channel="feishu", user="ou_boss", text="/concerns")
    assert core_inbox.people_cache(ctx).reloads == reloads >= 1


def test_a_person_added_after_the_directory_was_read_is_asked_by_name(ctx, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/concerns")
    add_person(ctx, "p_zhaoliu", display_name="赵六", bindings=[{"channel": "telegram", "external_user_id": "tg_zl"}])
    say(ctx, channel="feishu", user="ou_boss", text="问一下赵六：周报写完了吗？")
    assert len(_asked(client, "p_zhaoliu")) == 1 and len(telegram.texts_to("tg_zl")) == 1


def test_a_renamed_person_is_found_by_the_new_name_only(ctx, client, team):
    say(ctx, channel="feishu", user="ou_boss", text="/concerns")
    assert client.patch("/v1/persons/p_lisi", json={"display_name": "李思思", "aliases": []}).status_code == 200
    say(ctx, channel="feishu", user="ou_boss", text="问一下李思思：周报写完了吗？")
    assert len(_asked(client, "p_lisi")) == 1


def test_a_binding_made_earlier_in_the_same_batch_is_known_to_the_signals_after_it(ctx, client, team):
    code = client.post("/v1/persons/p_lisi/bind_codes").json()["code"]
    say(ctx, channel="feishu", user="ou_boss", text="/concerns")  # the directory is read before the binding exists
    say(ctx, channel="feishu", user="ou_lisi_new", text=f"bind {code}", process=False)
    say(
        ctx,
        channel="feishu",
        user="ou_boss",
        text="问一下@李四新号：周报写完了吗？",
        mentions=[{"external_user_id": "ou_lisi_new", "name": "李四新号"}],
        process=False,
    )
    tick(ctx)  # both in one pass: the bind changes the directory, the ask after it must see the new binding
    assert len(_asked(client, "p_lisi")) == 1
