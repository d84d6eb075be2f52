"""Everyday phrasings the intent table's frames do not cover (issue 21), for the gist reader: tuning rows.

Written from the kinds of phrasing the issue lists, with this corpus's people (never from the held-out set).
Rows as in zh.py / en.py: (text, intent, person, text passed on, priority, deadline words).
"""

GIST = [
    # the person before the verb, fillers, dialect verbs
    ("张三 问问他接口文档写完没", "ask", "张三", "你接口文档写完没？", None, None),
    ("王五那边，问下服务器扩容了吗", "ask", "王五", "服务器扩容了吗？", None, None),
    ("那个你帮我问一下陈静啊培训的场地她定了没有", "ask", "陈静", "培训的场地你定了没有？", None, None),
    ("帮我问哈张伟安卓包打好了没", "ask", "张伟", "安卓包打好了没？", None, None),
    ("帮我瞅瞅赵敏那边客户回邮件了没", "ask", "赵敏", "客户回邮件了没？", None, None),
    ("嗯 就是 问下王五 合同原件放哪了", "ask", "王五", "合同原件放哪了？", None, None),
    ("陈静在吗 帮我问她明天上午有没有空", "ask", "陈静", "明天上午有没有空？", None, None),
    ("帮我ping一下张伟，问他测试包发了没", "ask", "张伟", "测试包发了没？", None, None),
    ("赶紧问下王五数据库是不是满了", "ask", "王五", "数据库是不是满了？", "P0", None),
    ("急 问下张伟 机房的门禁卡在谁那", "ask", "张伟", "机房的门禁卡在谁那？", "P0", None),
    ("尽快问一下陈静样机到了没有", "ask", "陈静", "样机到了没有？", "P1", None),
    ("给王五发个消息，说培训改到周四了", "tell", "王五", "培训改到周四了", None, None),
    ("赵敏那边说一下，下午的会取消了", "tell", "赵敏", "下午的会取消了", None, None),
    ("急 告诉陈静服务器重启了", "tell", "陈静", "服务器重启了", "P0", None),
    # polite and chat-style English openings
    (
        "Would you be able to check with Alice whether the mockups are signed off?",
        "ask",
        "Alice Chen",
        "whether the mockups are signed off",
        None,
        None,
    ),
    ("Quick one for Bob: is staging up?", "ask", "Bob Smith", "is staging up?", None, None),
    ("q for alice - did the PO go out", "ask", "Alice Chen", "did the PO go out?", None, None),
    ("check w/ Bob if the slides are final", "ask", "Bob Smith", "if the slides are final", None, None),
    ("Bob - are you joining the offsite? ask him pls", "ask", "Bob Smith", "are you joining the offsite?", None, None),
    ("hey can u ask alice if she is around at 3", "ask", "Alice Chen", "if you are around at 3", None, None),
    (
        "no rush, but ask Bob whether he has the receipts",
        "ask",
        "Bob Smith",
        "whether you have the receipts",
        "P3",
        None,
    ),
    ("Heads up to Alice: the review moved to Monday", "tell", "Alice Chen", "the review moved to Monday", None, None),
    ("Bob: standup is at 9:30 tomorrow. pass it on", "tell", "Bob Smith", "standup is at 9:30 tomorrow", None, None),
    # status of one person, and of everything, in everyday words
    ("张三那个回了吗", "status", None, None, None, None),
    ("李四回我了没", "status", None, None, None, None),
    ("陈静那边有消息吗", "status", None, None, None, None),
    ("did Bob get back to me?", "status", None, None, None, None),
    ("any word from Alice?", "status", None, None, None, None),
    ("has Bob replied", "status", None, None, None, None),
    ("还有谁没回我", "status", None, None, None, None),
    ("问的那些都怎么样了", "status", None, None, None, None),
    ("what's still outstanding?", "status", None, None, None, None),
    ("who hasn't replied yet", "status", None, None, None, None),
    # cancel and nudge in words
    ("跟张三那个事不用问了", "cancel", "张三", None, None, None),
    ("李四那个算了", "cancel", "李四", None, None, None),
    ("那个问张三提测的不用了", "cancel", "张三", None, None, None),
    ("drop the question to Li Si", "cancel", "李四", None, None, None),
    ("never mind the Zhang San thing", "cancel", "张三", None, None, None),
    ("张三那边再催催", "nudge", "张三", None, None, None),
    ("再提醒下李四", "nudge", "李四", None, None, None),
    ("give Zhang San a poke", "nudge", "张三", None, None, None),
    # what did you do
    ("今天你都替我干了啥", "did", None, None, None, None),
    ("你都帮我联系了谁", "did", None, None, None, None),
    ("what have you done for me so far", "did", None, None, None, None),
    ("who did you contact today?", "did", None, None, None, None),
]

# Thanks and acknowledgements: a social reply, never a command.
SOCIAL = ["辛苦啦", "多谢", "谢谢你啊", "好嘞", "收到收到", "明白了", "thanks!", "thank you so much", "cheers mate",
          "ok cool", "noted", "perfect, thanks", "ok 谢了", "thx 👍"]  # fmt: skip
