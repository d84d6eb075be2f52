"""Any kind of answer: a photo, file or voice note from the person asked answers and is passed on as itself."""

from sqlalchemy import select

from app.pipeline import tick
from channels.inbound import InboundMedia, InboundMessage
from concern.models import Concern
from perception import service as perception
from tests.integration.action_helpers import add_person
from tests.integration.story_helpers import say

ASK = "/ask @p_zhangsan 把测试报告发我"


def _send_media(ctx, *, user: str, kind: str, caption: str = "", size: int | None = None, name: str | None = None):
    message = InboundMessage(
        channel="telegram",
        event_id=f"media_{kind}_{caption}",
        message_id="tg_msg_77",
        chat_id=user,
        chat_type="p2p",
        external_user_id=user,
        text=caption,
        media=InboundMedia(kind=kind, file_id="AgACAgIAAxk", file_name=name, size=size),
        occurred_at=ctx.clock.now(),
    )
    perception.record_message(ctx, message=message)
    tick(ctx)


def _concern(ctx) -> Concern:
    with ctx.reader() as uow:
        return uow.session.scalars(select(Concern)).one()


def test_a_photo_with_a_caption_answers_and_reaches_a_principal_on_the_same_platform_as_itself(ctx, team):
    _, telegram = team
    add_person(
        ctx,
        "p_tgboss",
        display_name="Boss",
        role="principal",
        locale="en",
        bindings=[{"channel": "telegram", "external_user_id": "tg_boss", "chat_id": "tg_boss"}],
    )
    say(ctx, channel="telegram", user="tg_boss", text=ASK)
    _send_media(ctx, user="tg_zs", kind="photo", caption="最新一版")
    concern = _concern(ctx)
    assert concern.state == "resolved" and concern.answer == "最新一版"
    [backflow] = [d.message for d in telegram.sent if d.message.external_user_id == "tg_boss" and d.message.media]
    assert backflow.media.kind == "photo" and backflow.media.file_id == "AgACAgIAAxk"
    assert backflow.media.message_id == "tg_msg_77" and backflow.media.chat_id == "tg_zs"
    assert "最新一版" in backflow.text  # the caption carries the answer


def test_a_file_without_caption_reaches_another_platform_as_a_note_never_a_link(ctx, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    _send_media(ctx, user="tg_zs", kind="document", size=1_258_291, name="report.pdf")
    concern = _concern(ctx)
    assert concern.state == "resolved" and concern.answer == "[文件]"
    text = feishu.texts_to("ou_boss")[-1]
    assert "张三回复了你的问题“把测试报告发给老板？”：[文件]" in text  # the question as it was sent to 张三
    assert "（附文件 · report.pdf · 1.2 MB，请在原平台查看）" in text
    assert "http" not in text and "bot" not in text.lower()


def test_a_sticker_from_someone_not_waited_on_answers_nothing(ctx, team):
    say(ctx, channel="feishu", user="ou_boss", text=ASK)
    _send_media(ctx, user="tg_ls", kind="sticker")
    assert _concern(ctx).state == "waiting_reply"
