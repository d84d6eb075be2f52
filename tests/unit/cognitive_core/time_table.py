"""The time-expression table: what people write in chat, and the moment they mean (also the library evaluation's data).

Now is Wednesday 2026-03-18 10:00 in Asia/Shanghai. Each row: the text, its locale, the expected local moment
(`MM-DD HH:MM`, None = no time in it) and whether it is vague (a default hour stands in for an unsaid one).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 3, 18, 10, 0, tzinfo=SHANGHAI)  # a Wednesday

TABLE: list[tuple[str, str, str | None, bool]] = [
    # Chinese
    ("明天下午3点", "zh", "03-19 15:00", False),
    ("明天下午三点给你", "zh", "03-19 15:00", False),
    ("明天15:00", "zh", "03-19 15:00", False),
    ("周五前", "zh", "03-20 18:00", True),
    ("今天下班前", "zh", "03-18 18:00", True),
    ("下班前给你", "zh", "03-18 18:00", True),
    ("明早10点前", "zh", "03-19 10:00", False),
    ("明早", "zh", "03-19 09:00", True),
    ("下周一", "zh", "03-23 18:00", True),
    ("晚上", "zh", "03-18 20:00", True),
    ("今晚给你", "zh", "03-18 20:00", True),
    ("下午", "zh", "03-18 15:00", True),
    ("下午3点", "zh", "03-18 15:00", False),
    ("今天下午4点半", "zh", "03-18 16:30", False),
    ("两小时后", "zh", "03-18 12:00", False),
    ("2小时后", "zh", "03-18 12:00", False),
    ("1分钟后", "zh", "03-18 10:01", False),
    ("半小时后", "zh", "03-18 10:30", False),
    ("30分钟内", "zh", "03-18 10:30", False),
    ("3天后", "zh", "03-21 10:00", False),
    ("后天", "zh", "03-20 18:00", True),
    ("明天", "zh", "03-19 18:00", True),
    ("月底前", "zh", "03-31 18:00", True),
    ("下周五", "zh", "03-27 18:00", True),
    ("周五下午5点前", "zh", "03-20 17:00", False),
    ("3月20日", "zh", "03-20 18:00", True),
    ("3月20号下午2点", "zh", "03-20 14:00", False),
    ("明天中午", "zh", "03-19 12:00", True),
    ("早上9点", "zh", "03-19 09:00", False),  # 09:00 has passed today: the next one
    ("本周内", "zh", "03-20 18:00", True),
    ("好的，没问题", "zh", None, False),
    ("测试报告已经发你了", "zh", None, False),
    ("有3个bug还没修", "zh", None, False),
    # English
    ("tonight", "en", "03-18 20:00", True),
    ("by Friday 5pm", "en", "03-20 17:00", False),
    ("by Friday", "en", "03-20 18:00", True),
    ("tomorrow 9:30", "en", "03-19 09:30", False),
    ("tomorrow at 3pm", "en", "03-19 15:00", False),
    ("in 2 hours", "en", "03-18 12:00", False),
    ("in 30 minutes", "en", "03-18 10:30", False),
    ("in 1 minute", "en", "03-18 10:01", False),
    ("next Monday", "en", "03-23 18:00", True),
    ("end of day", "en", "03-18 18:00", True),
    ("EOD", "en", "03-18 18:00", True),
    ("by EOD tomorrow", "en", "03-19 18:00", True),
    ("by end of week", "en", "03-20 18:00", True),
    ("this afternoon", "en", "03-18 15:00", True),
    ("tomorrow morning", "en", "03-19 09:00", True),
    ("tomorrow", "en", "03-19 18:00", True),
    ("at 4pm", "en", "03-18 16:00", False),
    ("end of month", "en", "03-31 18:00", True),
    ("March 20", "en", "03-20 18:00", True),
    ("ok will do", "en", None, False),
    ("version 2.0 is out", "en", None, False),
]
