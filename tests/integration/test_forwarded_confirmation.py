"""The principal's confirmation quotes the words the person asked read, exactly (issue 21 item 2).

Real database and the fake chat platforms; the principal (老板, Feishu) speaks, 张三 (Telegram) is asked.
"""

from tests.integration.story_helpers import say


def _words(sent: str) -> str:
    """What follows the frame (`老板想了解：` / `老板请你`) in a message as its reader got it."""
    return sent.split("：", 1)[1] if "：" in sent else sent.removeprefix("老板请你")


def test_the_confirmation_quotes_the_rewritten_question_that_was_sent(ctx, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="帮我问问张三，他那个周报写完了没有啊，急死了")
    [asked] = telegram.texts_to("tg_zs")
    assert asked == "老板想了解：你的周报写完了没有？"
    assert feishu.texts_to("ou_boss") == ["已发给张三：你的周报写完了没有？"]
    assert feishu.texts_to("ou_boss")[0].removeprefix("已发给张三：") == _words(asked)


def test_the_confirmation_of_a_request_quotes_the_request_as_it_was_sent(ctx, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="让张三把排班表发我")
    [asked] = telegram.texts_to("tg_zs")
    assert asked == "老板请你把排班表发给老板。"
    assert feishu.texts_to("ou_boss") == ["已发给张三：把排班表发给老板。"]
    assert feishu.texts_to("ou_boss")[0].removeprefix("已发给张三：") == _words(asked)


def test_a_message_passed_on_reads_rewritten_and_its_sender_hears_it_went(ctx, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="告诉张三他的出差申请我批了")
    assert telegram.texts_to("tg_zs") == ["老板让我转告：你的出差申请老板批了。"]
    assert feishu.texts_to("ou_boss") == ["已转告张三：你的出差申请老板批了。"]  # the words as 张三 read them
