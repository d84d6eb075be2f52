"""Everyday words end to end (issue 21): the person before the verb, status of one person, thanks, rewritten words.

Real database and the fake chat platforms; the principal (老板, Feishu) speaks, 张三 (Telegram) is asked.
"""

from tests.integration.story_helpers import say


def test_a_name_before_the_verb_asks_that_person_in_words_addressed_to_them(ctx, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="张三 问问他合同寄出去没有")
    assert telegram.texts_to("tg_zs") == ["老板想了解：你合同寄出去没有？"]
    assert "你合同寄出去没有" in feishu.texts_to("ou_boss")[-1]  # the confirmation quotes what was sent


def test_the_principals_me_becomes_their_name_and_fillers_stay_behind(ctx, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="帮忙问下张三上次那个bug修好了没有啊急死了")
    assert telegram.texts_to("tg_zs") == ["老板想了解：上次bug修好了没有？"]
    [loop] = client.get("/v1/concerns").json()["items"]
    assert loop["priority"] == "P0"


def test_status_of_one_person_answers_about_that_person(ctx, client, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？")
    say(ctx, channel="feishu", user="ou_boss", text="张三那个回了吗")
    answer = feishu.texts_to("ou_boss")[-1]
    assert answer.startswith("张三还没回你问的“提测什么时候能给？”") and "con_" not in answer


def test_status_of_someone_nothing_waits_on_says_so(ctx, client, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text="李四回我了没")
    assert feishu.texts_to("ou_boss")[-1] == "现在没有在等李四的事。"


def test_thanks_get_a_social_reply_and_contact_nobody(ctx, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="辛苦了")
    assert feishu.texts_to("ou_boss")[-1] == "不客气！有事随时叫我。"
    assert telegram.texts_to("tg_zs") == [] and client.get("/v1/concerns").json()["items"] == []


def test_a_cancel_in_words_cancels_and_never_asks_again(ctx, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？")
    say(ctx, channel="feishu", user="ou_boss", text="跟张三那个事不用问了")
    assert telegram.texts_to("tg_zs") == [  # the cancel is no new question: 张三 hears only that it is off
        "老板想了解：提测什么时候能给？",
        "老板取消了问你的问题“提测什么时候能给？”，不用再回复了。",
    ]
    assert client.get("/v1/concerns", params={"state": "cancelled"}).json()["items"]
