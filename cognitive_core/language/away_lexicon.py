"""The words of being away, on leave and back (zh / en) that `away.read` accounts a message for. Data only.

Each pattern is matched on the simplified, lower-cased message in which the people it names are marked (NAME: a
run of `MARK`), and every piece it finds is blanked out; a message is an absence only when a leave or absence
word was found and nothing is left over (a name, a question, a hedge, a negation or an answer all stay behind).
"""

# ruff: noqa: E501 (a word list reads best as one row; Chinese characters count double towards the width)

from __future__ import annotations

import re

MARK = "\ue001"
NAME = f"{MARK}+"
_ZH_NUM = r"(?:\d{1,3}|[一二两三四五六七八九十]{1,3}|半)"
_EN_NUM = r"(?:\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|couple of|half an?)"

# A leave of some kind: status on_leave. After times and durations are blanked ("请两天假" is "请 假" by then).
ON_LEAVE = re.compile(
    r"(?:请|休|放|调|补|申请)了?\s*(?:个|一个|了个)?\s*(?:的)?\s*(?:年|病|事|婚|产|陪产|丧|育儿|探亲|带薪|长)?假(?:期)?"
    r"|(?:年|病|事|婚|产|陪产|丧|育儿|探亲)假|在假期|休假|度假|调休|轮休|补休|(?:在家)?休息"
    r"|\b(?:annual|sick|parental|maternity|paternity|bereavement|medical|personal|compassionate|family|unpaid"
    r"|study)\s+leave\b"
    r"|\bleave\b|\bpto\b|\bvacation\b|\bholidays?\b|\btime off\b|\bdays? off\b|\boff sick\b|\bout sick\b|\bsick days?\b"
    r"|\bsick\b|\b(?:take|taking|took|taken|having|have)\s+(?:the\s+|a\s+)?off\b|\boff\b",
    re.I,
)
# Away without a leave: a trip, out of office, not in. Status away.
AWAY = re.compile(
    r"(?:去|到|在)[\u4e00-\u9fff]{1,5}?(?:出差|培训|开会)|出差(?:去|到)[\u4e00-\u9fff]{1,4}"
    r"|出差|外出|出门|出国|去外地|在外地|回老家"
    r"|不在(?:公司|办公室|工位|单位|线)?|不来(?:公司|上班|办公室)?|不上班|没法上班|上不了班"
    r"|\bout of (?:the )?office\b|\booo\b|\bon (?:a )?(?:business )?trip\b|\bbusiness trip\b"
    r"|\b(?:travell?ing|on the road)(?: for work)?\b|\bunavailable\b|\bnot (?:around|available|reachable|in)\b"
    r"|\bwon'?t be (?:around|available|reachable|in|online)\b|\boff the grid\b"
    r"|\bat (?:a |the )?(?:conference|offsite|off-site)\b"
    r"|\bon business\b|\bout\b|\baway\b|\boffline\b|\bgone\b",
    re.I,
)
# Who stands in: "有事找李四", "张伟帮我顶一下", "Li covers for me", "ping Priya while I'm out".
_WHILE = (
    r"(?:\s*,?\s*(?:while i'?m(?= (?:out|away|off|gone))|in the meantime|meanwhile|instead"
    r"|if (?:anything|something) comes up|for anything(?: urgent)?|if needed|if urgent))*"
)
STAND_IN = re.compile(
    r"(?:(?:有|工作上的|工作|紧急的?|急|别的|其他|其它)?事(?:情)?(?:的话)?|有问题(?:的话)?|期间|这期间|这段时间"
    r"|我不在(?:的时候|期间)|不在期间)*"
    rf"(?:请|可以|先|直接|都)*(?:找|联系|问问|问|交给|转给|@)\s*{NAME}(?:就行|就好|就可以|处理|帮忙|对接)?"
    rf"|(?:期间|这期间|这段时间)?(?:由\s*)?{NAME}\s*(?:会)?(?:帮我|替我|代我|帮忙)?"
    r"(?:顶一下|顶着|顶|代班|代理|代管|负责|跟进|处理|盯着|看着|接手|对接|cover(?:s|ing)?|跟进|跟|盯|管)(?:一下|下)?"
    r"(?:我的(?:工作|事情?)|进度|项目|工作|这边)?"
    rf"|(?:我的)?(?:工作|事情?)(?:先)?(?:交给|由)\s*{NAME}(?:负责|处理|跟进|对接)?"
    rf"|{NAME}\s+(?:is\s+|will\s+be\s+|'s\s+|'ll\s+|will\s+)?(?:covering|covers?|handling|handles?"
    r"|backing me up|backs? me up|standing in|stands? in|my backup|my back-up|my stand-in|in charge|on point"
    rf"|the contact|point of contact)(?:\s+for me)?{_WHILE}"
    rf"|{NAME}\s+(?:can|will|'ll)\s+(?:help|cover|answer|handle (?:it|things)|take care of (?:it"
    rf"|things))(?:\s+for me)?{_WHILE}"
    rf"|(?:please\s+)?(?:ping|contact|reach out to|reach|talk to|ask|go to|message|email|see)\s+{NAME}{_WHILE}"
    r"|(?:for anything(?: urgent)?|if (?:anything|something) (?:comes up|is urgent)|if urgent|meanwhile"
    rf"|in the meantime)[,:\s]*(?:please\s+)?(?:ping|contact|reach out to|talk to|ask|go to|message)\s+{NAME}",
    re.I,
)
# How to reach the person meanwhile, and why they are out: said, and no part of the absence.
ASIDES = re.compile(
    r"有事.{0,8}?(?:再)?(?:找我|联系我|打我电话|打电话|电话联系|微信联系|给我打电话|微信|留言)|(?:急事|紧急的?事?)(?:请)?(?:打电话|电话联系|打我电话|微信)"
    r"|(?:消息|回复)(?:可能)?(?:会)?(?:回得?)?(?:慢|晚|不及时)(?:一些|一点|点)?"
    r"|\b(?:call|text|phone) me(?: if\b(?: (?:urgent|needed|it'?s urgent)\b)?)?|\b(?:with )?limited (?:access"
    r"|connectivity|internet|wifi)\b"
    r"|(?:孩子|小孩|家人|家里人|老人|老婆|老公|爸爸|妈妈|爸妈|父母|家里)(?:生病了?|病了|发烧了?|住院了?|有点?事|不舒服)"
    r"|身体不舒服|不舒服|生病了?|病了|发烧了?|感冒了?|看病|去医院|看医生|家里有(?:点)?事|有点事|有事|私事|结婚|搬家"
    r"|\bfeeling (?:unwell|sick|ill|under the weather)\b|\bnot feeling (?:well|great)\b|\bunder the weather\b"
    r"|\b(?:a )?family (?:emergency|matter|thing|stuff)\b|\bpersonal (?:reasons|matters|stuff)\b|\b(?:a "
    r"|my )?(?:doctor'?s|dentist) appointment\b"
    r"|\b(?:got|have|caught) (?:the flu|a cold|covid|a fever)\b",
    re.I,
)
# Durations that are no point in time: "两天", "一周", "for 3 days", "a week"; vague ones ("这几天") set no return.
DURATION = re.compile(
    rf"(?P<zn>{_ZH_NUM})\s*(?:个)?\s*(?:工作)?(?P<zu>天|日|周|星期|礼拜|月|小时)(?!后|以后|之后|内)"
    rf"|\b(?:for\s+)?(?:the\s+)?(?:next\s+)?(?P<en>{_EN_NUM})\s+(?:(?:business|working|work)\s+)?(?P<eu>days?|weeks?"
    r"|months?|hours?)\b",
    re.I,
)
VAGUE = re.compile(
    r"最近|这几天|这两天|这段时间|一段时间|一阵子|这阵子|近期|几天|\b(?:for\s+)?(?:a few|several|some) (?:days|hours)\b|\bfor a (?:while|bit)\b",
    re.I,
)
# A holiday's end: back the day after (国庆 is 1–7 October).
HOLIDAY_END = re.compile(r"国庆(?:节)?(?:假期|长假)?(?:结束)?(?:后|之后|以后)|国庆(?:节)?(?:假期|长假)?结束")
# What a time's neighbours say it is: when one comes back, when the absence starts, through when it lasts.
BACK_AFTER = re.compile(r"^\s*(?:就|再|才|会|应该|能|可以)?(?:回来|回公司|回到公司|回办公室|回|上班|复工|返岗)")
BACK_BEFORE = re.compile(r"(?:\bback|\breturn(?:ing)?|回来|回)\s*(?:on|in|at|by)?\s*$", re.I)
START_AFTER = re.compile(r"^\s*(?:开始|起)")
START_BEFORE = re.compile(r"(?:从|自|\bfrom|\bstarting(?: on)?|\bstart(?:ing)? on|\bbeginning|\bas of)\s*$", re.I)
RANGE = re.compile(r"^\s*(?:到|至|直到|-|~|–|\bto\b|\buntil\b|\btill\b|\bthrough\b|\bthru\b)\s*$", re.I)
THROUGH_BEFORE = re.compile(r"(?:到|至|直到|一直到|-|~|–|\bthrough|\bthru|\bto)\s*$", re.I)
UNTIL_WORDS = re.compile(r"^(?:until|till)\b", re.I)
BY_WORDS = re.compile(r"^(?:by|before|no later than)\b", re.I)
UNTIL_BEFORE = re.compile(r"\b(?:until|till)\s*$", re.I)
BY_BEFORE = re.compile(r"\b(?:by|before)\s*$", re.I)
WEEK_SPAN = re.compile(r"(?:周|星期|礼拜)(?:内|之内)?$|\bweek\b|\beow\b", re.I)
MONTH_SPAN = re.compile(r"月底|月末|\bmonth\b|\beom\b", re.I)
PERIOD_ONLY = re.compile(
    r"(?:凌晨|早上|早晨|清晨|一早|上午|中午|下午|傍晚|晚上|this (?:morning|afternoon|evening))", re.I
)
# English weeks as a whole, read as the Chinese words the date grammar knows (kept out of it: a deadline "next
# week" is no day, but an absence "next week" lasts all of it).
WEEKS_EN = re.compile(
    r"\b(?<!of )(?:(?P<next>next)|this|the rest of (?:the|this)|the whole|all|the) (?P<unit>week|day(?! after))\b", re.I
)
# "I'm off / out until Monday" stays a pause (no work state), as it always was.
PAUSE_INSTEAD = re.compile(r"^\s*(?:i'?m|i am)\s+(?:off|out)\s+(?:until|till)\b", re.I)
# Coming back: "销假了", "我回公司了", "back online", "back from leave"; only fillers and "today" besides.
BACK = re.compile(
    r"销假|出差回来|休完假|(?:[年病事婚产]假|假期|休假|请假)结束|病好了|回来上班|回来|回公司|回到公司|回办公室|回岗|复工|返岗|上班|回归"
    r"|\b(?:(?:just )?(?:got |came )?back|returned) from (?:my |the )?(?:leave|vacation|holiday|holidays|pto|trip"
    r"|business trip|sick leave|ooo|break|time off)\b"
    r"|\bback (?:online|in (?:the )?office|at work|at my desk|to work)\b|\b(?:just )?got back\b|\bback\b"
    r"|\bavailable again\b|\bonline again\b"
    r"|\bdone with (?:my )?(?:leave|vacation|pto)\b",
    re.I,
)
BACK_SPOKEN = re.compile(
    r"我|了|啦|已经|刚|\bi'?m\b|\bi am\b|销假|出差回来|休完假|假期结束|休假结束|请假结束|回来上班|\bback (?:from|online|in|at|to)\b|\bgot back\b"
    r"|\breturned\b",
    re.I,
)
BACK_ASIDES = re.compile(
    r"可以(?:给我)?发消息了|可以找我了|有事找我|有事可以找我|\byou can (?:message|ping|reach) me again\b|今天|刚刚|刚|已经|正式|\btoday\b|\bnow\b"
    r"|\bjust\b|\bagain\b|\bfinally\b",
    re.I,
)
# Words that say nothing about the absence: the speaker, fillers, politeness, the cues once read.
FILLERS = re.compile(
    r"跟你说(?:一下|下|一声)?|和你说(?:一下|下|一声)?|跟你讲(?:一下|下)?|告诉你(?:一声|一下)?|说一下|说一声|说下|报备(?:一下)?|通知(?:你)?(?:一下)?"
    r"|提前说(?:一下|一声)?|知会(?:一声)?|接下来|剩下|余下|去|那个|这个|我|本人|谢谢|多谢|中|嗯+|呃+|额|哎|诶|啊|哈+|哦|喔|呀|吧|啦|了|的|呢|嘞|哟|在|要|会|得|就|先|是|正在|现在"
    r"|已经|大概|预计|估计|应该|差不多|左右|期间|都|一直|到|至|直到|开始|起|从|回来|回|上班|前|之前|以前|后|之后|以后|整"
    r"|\b(?:i'?m|i am|i'?ll|i will|i'?d|i'?ve|hi|hey|hello|ok|okay|so|um+|uh+|btw|fyi|just|quick|note|heads[- ]up"
    r"|please|pls|thanks|thank you|thx|ty|team|all|also|and"
    r"|then|of|the|a|an|on|in|at|for|from|until|till|through|thru|to|by|will|be|am|im|i|me|my|going|gonna"
    r"|currently|now|officially|starting|start|back|return|returning|rest|whole|entire|taking|take|days?)\b"
    r"|[\s,.:;!~…、，。：；！～\-—()（）]",
    re.I,
)
