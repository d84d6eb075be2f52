"""A commitment opens only when an answer commits its sender to a time, judged with the question (issue 21 item 3).

Pairs both ways: (question asked, answer given). A time given as information opens nothing.
"""

from datetime import UTC, datetime

import pytest

from cognitive_core.language.promises import commits, promise

NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)  # Wednesday 10:00 in Shanghai

PROMISES = [
    ("提测什么时候能给？", "明天下午给你"),
    ("提测什么时候能给？", "下午三点"),
    ("周报什么时候能交", "周五前发"),
    ("周报什么时候能交", "周五"),
    ("方案能不能周五前给我？", "可以，周四下午给你"),
    ("报价单改好了没有", "还没，明天上午发你"),
    ("报价单改好了没有", "我争取今天下班前弄好"),
    ("合同寄出去没有", "下午寄，寄了告诉你"),
    ("发票开了没", "明天给你开好"),
    ("接口文档写完没", "今晚写完发给你"),
    ("测试报告什么时候出", "明早九点"),
    ("安卓包什么时候能出", "后天"),
    ("设计稿什么时候给", "周五下午给您"),
    ("数据什么时候能好", "下午四点前"),
    ("样品寄出了吗", "明天我会寄出"),
    ("预算表改完没有", "保证明天上午交"),
    ("能不能今天之前把会议纪要整理出来", "晚上八点前给你"),
    ("上线时间确认了吗", "我明天上午回你"),
    ("bug修好了没", "下午修好了告诉你"),
    ("PPT准备好了吗", "今晚十点前发你"),
    ("when can you send the report?", "by Friday"),
    ("when can you send the report?", "tomorrow at 3pm"),
    ("is the build ready?", "I'll send it by Friday"),
    ("is the build ready?", "not yet, I will have it by tomorrow morning"),
    ("did the invoice go out?", "I can send it this afternoon"),
    ("do you have the Q3 budget numbers?", "you'll have them tomorrow"),
    ("when will it be ready?", "Thursday 5pm"),
    ("are the flights booked?", "I'll book them tonight"),
    ("ETA on the fix?", "tomorrow noon"),
    ("by when can we get the contract?", "next Monday"),
    ("can you review my PR?", "will do by 4pm"),
    ("is the deck done?", "should be done by tomorrow"),
]

INFORMATION = [
    ("明天的会几点开始？", "下午三点"),
    ("明天的会几点开始？", "明天下午三点，在3楼会议室"),
    ("明天的飞机几点的", "明早八点"),
    ("你下周二有没有空", "周二下午有空"),
    ("下周一的面试时间？", "下周一上午十点"),
    ("客户什么时候到", "明天下午两点到"),
    ("培训定在哪天", "周五下午"),
    ("你明天来不来", "来，明天上午十点到"),
    ("年会在哪天", "下周六晚上"),
    ("打印机什么时候修的", "明天上午修理工来"),
    ("发布会定在哪天？", "4月2日下午"),
    ("周四的评审还开不开", "开，周四下午两点"),
    ("车票买好了没有", "买好了，明天早上七点的车"),
    ("今晚能不能加个班", "可以，加到九点"),
    ("你周末加班不", "周六上午加"),
    ("团建去哪", "周六去郊区，早上八点出发"),
    ("下午有没有空开个会", "三点以后有空"),
    ("机房什么时候断电", "今晚十一点"),
    ("what time is the meeting?", "3pm"),
    ("what time is the meeting?", "tomorrow at 3pm in room 2"),
    ("what time does the client land?", "Friday 9am"),
    ("are you free at 4?", "free after 5pm"),
    ("are you coming to the demo tomorrow?", "yes, it starts at 10am"),
    ("when is the offsite?", "next Thursday"),
    ("what day is the launch?", "Monday"),
    ("when does the office reopen?", "tomorrow morning"),
    ("is the venue booked?", "yes, for Friday evening"),
    ("when is your flight?", "tonight at 11pm"),
    ("can you join the 3pm call?", "yes, I'm free until 5pm"),
    ("when is the dentist appointment?", "tomorrow at 2pm"),
]


def test_there_are_at_least_sixty_pairs_both_ways():
    assert len(PROMISES) >= 30 and len(INFORMATION) >= 30 and len(PROMISES) + len(INFORMATION) >= 60


@pytest.mark.parametrize(("question", "answer"), PROMISES)
def test_an_answer_that_promises_a_time_opens_a_commitment(question, answer):
    assert commits(answer, question)
    opened = promise(answer, concern_id="con_1", kind="question", role="target", timezone="Asia/Shanghai", now=NOW,
                     question=question)  # fmt: skip
    assert opened is not None and opened["parent_id"] == "con_1"


@pytest.mark.parametrize(("question", "answer"), INFORMATION)
def test_a_time_given_as_information_opens_nothing(question, answer):
    assert not commits(answer, question)
    assert promise(answer, concern_id="con_1", kind="question", role="target", timezone="Asia/Shanghai", now=NOW,
                   question=question) is None  # fmt: skip
