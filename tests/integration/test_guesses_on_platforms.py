"""The classifier's did-you-mean through the real clients: the strict Feishu and Telegram fakes take its buttons."""

from __future__ import annotations

from tests.integration.action_helpers import add_person
from tests.integration.story_helpers import say
from tests.integration.test_bundle_on_platforms import platforms  # noqa: F401 (the fixture)

UNSURE = "张三那事怎么说"  # neither the table nor the gist reads it; the classifier is unsure


def test_an_unsure_readings_buttons_are_one_telegram_keyboard(ctx, platforms):  # noqa: F811
    _, telegram_fake = platforms
    say(ctx, channel="telegram", user="9001", text=UNSURE)
    [key] = [key for key in telegram_fake.sent if key[0] == "9001"]
    labels = [label for row in telegram_fake.keyboard(*key) for label, _ in row]
    assert labels == ["去问张三", "张三回复了吗"]


def test_an_unsure_readings_buttons_are_a_feishu_card(ctx, platforms):  # noqa: F811
    feishu_fake, _ = platforms
    add_person(ctx, "p_chief", display_name="Chief", role="principal", locale="en",
               bindings=[{"channel": "feishu", "external_user_id": "ou_chief"}])  # fmt: skip
    say(ctx, channel="feishu", user="ou_chief", text=UNSURE)
    [sent] = feishu_fake.sent_to("ou_chief")
    assert [label for label, _ in feishu_fake.buttons(sent["message_id"])] == ["Ask 张三", "Has 张三 replied?"]
