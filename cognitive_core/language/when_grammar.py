"""The vocabulary of time expressions in chat (zh / en) that `when.parse_when` reads: the atoms and their slots.

The words (digits, weekdays, months, parts of the day with the hour each means) and one pattern of atoms: a
duration, a day, a part of the day, a clock time, a "before" marker ("前" / "by"). Each named group of ATOMS is
one kind of atom; SLOTS says which slot of an expression it fills (one of each per expression). Data only, no I/O.
"""

from __future__ import annotations

import re

DAY_END = 18  # a day without an hour ("周五前", "by Friday", "明天") means its working day's end
EVENING = 20  # "晚上", "tonight"
AFTERNOON = 15  # "下午", "this afternoon"
MORNING = 9  # "明早", "tomorrow morning"

ZH_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}
EN_NUMBERS = {"the": 1, "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10}
NUM = r"(?:\d{1,3}|[零〇一二两三四五六七八九十]{1,3})"
WEEKDAY_ZH = "一二三四五六日天"
WEEKDAYS_EN = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
MONTHS_EN = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# Full names, or the short forms that are not also words ("sat", "sun"): "I sat down" names no Saturday.
WD_EN = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues?|wed|thu(?:rs?)?|fri)"
MON_EN = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
# Parts of the day: (default hour, whether a clock hour in it is afternoon, day offset it implies or None).
PERIODS = {
    "凌晨": (5, False, None),
    "早上": (MORNING, False, None),
    "早晨": (MORNING, False, None),
    "清晨": (MORNING, False, None),
    "一早": (MORNING, False, None),
    "上午": (10, False, None),
    "中午": (12, True, None),
    "下午": (AFTERNOON, True, None),
    "傍晚": (DAY_END, True, None),
    "晚上": (EVENING, True, None),
    "今晚": (EVENING, True, 0),
    "明早": (MORNING, False, 1),
    "明晚": (EVENING, True, 1),
    "下班": (DAY_END, True, None),
    "morning": (MORNING, False, None),
    "noon": (12, True, None),
    "midday": (12, True, None),
    "afternoon": (AFTERNOON, True, None),
    "evening": (EVENING, True, None),
    "tonight": (EVENING, True, 0),
    "eod": (DAY_END, True, None),
    "cob": (DAY_END, True, None),
    "end of day": (DAY_END, True, None),
    "end of the day": (DAY_END, True, None),
}

ATOMS = re.compile(
    "|".join(
        [
            # durations: "两小时后", "30分钟内", "半小时后", "3天后", "in 2 hours", "within 30 minutes"
            rf"(?P<zdur>(?P<zdn>{NUM})?\s*(?:个)?(?P<zhalf>半)?\s*(?:个)?"
            r"(?P<zdu>小时|钟头|分钟|天|周|星期)(?:后|以后|之后|内|以内|之内))",
            r"(?P<edur>\b(?:in|within)\s+"
            r"(?P<edn>\d{1,3}|the(?=\s+hour\b)|an?|one|two|three|four|five|six|ten|half\s+an?)\s*"
            r"(?P<edu>minutes?|mins?|hours?|hrs?|h|days?|weeks?)\b)",
            # days
            r"(?P<zrel>大后天|后天|明天|明日|今天|今日)",
            rf"(?P<zwd>(?P<znext>下下|下个?|这个?|本)?(?:周|星期|礼拜)(?P<zwdn>[{WEEKDAY_ZH}1-7]))",
            r"(?P<zweek>(?:这|本|下个?)(?:周|星期|礼拜)(?:内|之内)?)",
            r"(?P<zmonth>(?:本月|这个月)?(?:月底|月末))",
            r"(?P<zdate>(?P<zm>\d{1,2})月(?P<zd>\d{1,2})[日号])",
            # a day of this month or the next: "3号", "the 3rd" (not "3号楼", "the 3rd floor")
            r"(?P<zdom>(?<![\d月])(?P<zdd>[12]?\d|3[01])[号日](?![楼线门厅位机床房桌车口\d]|会议室))",
            r"(?P<edom>\bthe\s+(?P<edd>[12]?\d|3[01])(?:st|nd|rd|th)\b(?!\s+(?:floor|time|place|round|quarter|item|row"
            r"|line|one|person|version|attempt|option|point|question|week|day|month)))",
            r"(?P<erel>\b(?:today|tomorrow|tmrw?|the day after tomorrow)\b)",
            rf"(?P<ewd>\b(?:(?P<enext>next|this|coming)\s+)?(?P<ewdn>{WD_EN})\b)",
            r"(?P<eweek>\b(?:end of (?:the )?week|eow)\b)",
            r"(?P<emonth>\b(?:end of (?:the )?month|eom)\b)",
            rf"(?P<edate>\b(?:(?P<em1>{MON_EN})\.?\s+(?P<ed1>\d{{1,2}})(?:st|nd|rd|th)?"
            rf"|(?P<ed2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<em2>{MON_EN}))\b)",
            r"(?P<eiso>\b(?P<iy>\d{4})-(?P<im>\d{2})-(?P<id>\d{2})\b)",
            # parts of the day
            r"(?P<zper>凌晨|早上|早晨|清晨|一早|上午|中午|下午|傍晚|晚上|今晚|明早|明晚|下班)",
            r"(?P<eper>\b(?:(?:this|tomorrow)\s+)?"
            r"(?:morning|noon|midday|afternoon|evening|tonight|eod|cob|end of (?:the )?day)\b)",
            # clock times
            r"(?P<hhmm>(?<![\d.:])(?P<hh>[01]?\d|2[0-3])[:：](?P<mm>[0-5]\d)(?![\d.])\s*(?P<ampm1>[ap]\.?m\.?\b)?)",
            rf"(?P<zclock>(?P<zh>{NUM})\s*[点點时](?:\s*(?P<zhalfh>半)|(?P<zq>一刻|三刻)|\s*(?P<zmin>{NUM})\s*分?)?)",
            r"(?P<eclock>\b(?P<eh>1[0-2]|0?[1-9])\s*(?P<ampm2>[ap]\.?m\.?)(?!\w))",
            r"(?P<eat>\bat\s+(?P<eath>1[0-2]|0?[1-9]|1[3-9]|2[0-3])\b(?![.:]\d))",
            # "before" markers
            r"(?P<zbefore>之前|以前|之内|以内|前)",  # "今天之内": within that day, its end
            r"(?P<zlatest>最晚|最迟|不晚于)",  # "最晚明天上午": a deadline said before its day
            r"(?P<ebefore>\b(?:by|before|until|till|no later than)\b)",
            r"(?P<elatest>\bat\s+(?:the\s+)?latest\b)",  # "tomorrow morning at the latest": after it
        ]
    ),
    re.IGNORECASE,
)
GAP = re.compile(r"^(?:[\s,，的]|\bat\b|\bon\b|\bthe\b)*$", re.IGNORECASE)
SLOTS = {
    "zdur": "dur",
    "edur": "dur",
    "zrel": "day",
    "zwd": "day",
    "zweek": "day",
    "zmonth": "day",
    "zdate": "day",
    "zdom": "day",
    "edom": "day",
    "erel": "day",
    "ewd": "day",
    "eweek": "day",
    "emonth": "day",
    "edate": "day",
    "eiso": "day",
    "zper": "period",
    "eper": "period",
    "hhmm": "clock",
    "zclock": "clock",
    "eclock": "clock",
    "eat": "clock",
    "zbefore": "before",
    "zlatest": "before",
    "ebefore": "before",
    "elatest": "before",
}
