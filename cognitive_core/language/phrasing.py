"""The small facts inside what people write: traditional characters, emoji, priority words, clock ranges. Pure.

Every transform that the intent table matches on keeps character positions (one character in, one out), so a
span found in the matched form cuts the same words out of what the person wrote.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from cognitive_core.language.when import Found, _zh_number, parse_when

# Traditional → simplified, one character each (the chat vocabulary; names like 張 and 陳 included).
_TRADITIONAL = (
    "問張說確認訴轉請幫這別擾發時點後們麼個會開線試測給還沒嗎誰煩進報設計週務對過裡邊樣級優條讓聲與為來兩萬覆復經"
    "東題頭門間關歡謝見現電話語讀寫聽錯總號幾鐘夠動應該項決審據續處辦隊資實際帶學網圖買賣錢單雙機標準齊簡體節導員"
    "團劃調紹劉陳楊黃趙吳鄭孫馮許蘇盧葉蔣韓鄧負責況態氣遲緊禮暫訊斷閱議構驗證產專業戶預約簽購獎勵樓層畫顯鬧"
    "稱將長車風記錄歷態傳遞達聯繫絡們啟動嗎詢催跟蹤"
)
_SIMPLIFIED = (
    "问张说确认诉转请帮这别扰发时点后们么个会开线试测给还没吗谁烦进报设计周务对过里边样级优条让声与为来两万复复经"
    "东题头门间关欢谢见现电话语读写听错总号几钟够动应该项决审据续处办队资实际带学网图买卖钱单双机标准齐简体节导员"
    "团划调绍刘陈杨黄赵吴郑孙冯许苏卢叶蒋韩邓负责况态气迟紧礼暂讯断阅议构验证产专业户预约签购奖励楼层画显闹"
    "称将长车风记录历态传递达联系络们启动吗询催跟踪"
)
_TO_SIMPLIFIED = str.maketrans(_TRADITIONAL, _SIMPLIFIED)
_WIDE = str.maketrans("：，。！？；（）　～＠", ":,.!?;() ~@")

# What an ask or a tell says when no word says how urgent it is: P1 is "today" in the source documents, P2 "soon";
# a routine question is chased after a day, and `尽快` / `asap` (P1) then means something.
PLAIN_PRIORITY = "P2"
# Priority words, lifted out of the text: (pattern, priority).
_PRIORITIES = (
    (r"\b[Pp]([0-3])\b", None),
    (
        r"(?:非常|特别|十万火急|火急|很|特|超)?(?:紧急|加急)|十万火急|十分火急|急急急?|很急|特急|超急|非常急|急死了?"
        r"|赶紧|赶快|高优先级?|优先级高|^急(?=[\s!,:]|$)|(?<=[\s,])急$|(?<=[\[【(（])急(?=[\]】)）])",
        "P0",
    ),
    (r"\b(?:urgent(?:ly)?|high[- ]priority|top priority|critical)\b", "P0"),
    (r"尽快|尽早|\b(?:asap|a\.s\.a\.p\.|as soon as (?:possible|you can))\b", "P1"),
    (r"不急|不着急|不用急|不赶|有空的时候|低优先级?|优先级低", "P3"),
    (r"\b(?:no rush|not urgent|low[- ]priority|whenever (?:they|he|she|you) can|when you get a chance)\b", "P3"),
)
_PRIORITY = re.compile("|".join(f"(?:{p})" for p, _ in _PRIORITIES), re.I)
_FILLER = r"[\s,.:;!?、~\-，。：；！？]*"


def simplified(text: str) -> str:
    """`問一下張三：` → `问一下张三:` (same length: positions carry over)."""
    return text.translate(_TO_SIMPLIFIED).translate(_WIDE)


def _is_emoji(char: str) -> bool:
    return unicodedata.category(char) in ("So", "Sk", "Cs") or char in "\ufe0f\u200d" or ord(char) >= 0x1F000


def without_emoji(text: str) -> str:
    """Emoji and pictographs out, spaces tidied: what is left is the words."""
    return re.sub(r"[ \t]{2,}", " ", "".join(c for c in text if not _is_emoji(c))).strip()


@dataclass(frozen=True)
class Priority:
    """A priority said in words, and the text without them."""

    priority: str | None
    words: str | None
    rest: str


def priority(text: str) -> Priority:
    """`紧急！问下张三…` → P0 and the text without 紧急; `不急` → P3; `P2` → P2; nothing said → None."""
    match = _PRIORITY.search(simplified(text))
    if match is None:
        return Priority(None, None, text)
    said = match.group(0)
    level = f"P{said[1]}" if re.fullmatch(r"[Pp][0-3]", said) else None
    if level is None:
        level = next(p for pattern, p in _PRIORITIES[1:] if re.fullmatch(pattern, said, re.I))
    start, end = _tag(text, match.start(), match.end())
    rest = text[:start].rstrip(" ,，、:：") + _joiner(text, start, end) + text[end:].lstrip(" ,，!！、:：")
    return Priority(level, said, rest.strip())


def _tag(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of `[urgent]` / `【急】` when the words stand alone in brackets: the brackets go with them."""
    before, after = text[:start].rstrip(), text[end:].lstrip()
    if before[-1:] in ("[", "【", "(", "（") and after[:1] in ("]", "】", ")", "）"):
        return len(before) - 1, len(text) - len(after) + 1
    return start, end


def _joiner(text: str, start: int, end: int) -> str:
    before, after = text[:start].rstrip(), text[end:].lstrip(" ,，!！、:：")
    return " " if before and after and before[-1].isascii() and after[0].isascii() else ""


# Clock words for quiet hours: "晚上10点", "22:00", "10pm", "早上8点", "8点".
_CLOCK = (
    r"(?:(?:凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|半夜)\s*)?(?:\d{1,2}|[一二两三四五六七八九十]{1,3})"
    r"(?:点半|[:：点]\d{0,2})?(?:\s*[ap]\.?m\.?)?"
)
_RANGE = re.compile(rf"(?P<a>{_CLOCK})\s*(?:到|至|-|~|～|—|–|to|until|till|and)\s*(?P<b>{_CLOCK})", re.I)


def clock(words: str, *, now: datetime, tz: str) -> str | None:
    """`晚上10点` → `22:00`, `8点` → `08:00`, `10pm` → `22:00` (None when the words are no clock time)."""
    bare = re.fullmatch(r"(\d{1,2}|[一二两三四五六七八九十]{1,3})(?:[:：点](\d{2})?)?(半)?", words.strip())
    if bare:
        hour, minute = _zh_number(bare.group(1)), 30 if bare.group(3) else int(bare.group(2) or 0)
        return f"{hour:02d}:{minute:02d}" if hour < 24 and minute < 60 else None
    words = words.replace("夜里", "晚上").replace("半夜", "凌晨")
    found = parse_when(words, now=now, tz=tz)
    if found is None:
        return None
    local = found.at.astimezone(ZoneInfo(tz))
    return f"{local:%H:%M}"


def _bare(words: str) -> bool:
    return re.fullmatch(r"(\d{1,2}|[一二两三四五六七八九十]{1,3})(?:[:：点](\d{2})?)?(半)?", words.strip()) is not None


def quiet_windows(text: str, *, now: datetime, tz: str) -> list[dict[str, str]]:
    """Every clock range in `text` ("晚上10点到早上8点", "10pm-8am") as quiet-hours windows."""
    windows = []
    for m in _RANGE.finditer(simplified(text)):
        start, end = clock(m.group("a"), now=now, tz=tz), clock(m.group("b"), now=now, tz=tz)
        if start and end and _bare(m.group("b")) and int(start[:2]) >= 12 > int(end[:2]) > int(start[:2]) - 12:
            end = f"{int(end[:2]) + 12:02d}{end[2:]}"  # "中午12点到1点半": the afternoon's 13:30, not 01:30
        if start and end and start != end:
            windows.append({"start": start, "end": end})
    return windows


def next_monday(now: datetime, tz: str) -> datetime:
    """Next Monday 00:00 in `tz` ("这周别打扰我" ends there), as an aware time."""
    local = now.astimezone(ZoneInfo(tz))
    monday = local.date() + timedelta(days=7 - local.weekday())
    return datetime.combine(monday, time(0), tzinfo=ZoneInfo(tz))


def tomorrow(now: datetime, tz: str) -> datetime:
    """Tomorrow 00:00 in `tz` ("今天别打扰我" ends there)."""
    local = now.astimezone(ZoneInfo(tz))
    return datetime.combine(local.date() + timedelta(days=1), time(0), tzinfo=ZoneInfo(tz))


def until(text: str, *, now: datetime, tz: str) -> datetime | None:
    """The moment "…之前别打扰我" / "until Monday" names: the day's start when only a day was said."""
    found = parse_when(text, now=now, tz=tz)
    if found is None or found.at <= now:
        return None
    local = found.at.astimezone(ZoneInfo(tz))
    if found.vague:
        return datetime.combine(local.date(), time(0), tzinfo=ZoneInfo(tz))
    return local


# "请假到周五" is through Friday; "下周一回来", "back Monday" and English "until Monday" mean back on that day.
_RETURNS = re.compile(r"回来|回公司|回办公室|上班|\bback\b|\breturn|\buntil\b|\btill\b", re.I)


def return_moment(found: Found, *, text: str, tz: str) -> datetime:
    """When someone away is back, from the time they said: a day alone means all of it, unless they return then."""
    local = found.at.astimezone(ZoneInfo(tz))
    if not found.vague:
        return local
    day = local.date() + (timedelta(0) if _RETURNS.search(text) else timedelta(days=1))
    return datetime.combine(day, time(0), tzinfo=ZoneInfo(tz))


def tidy(body: str) -> str:
    """A message body without the frame's leftovers: leading/trailing separators and filler words."""
    body = re.sub(rf"^{_FILLER}(?:一下|一声)?{_FILLER}", "", body)
    body = re.sub(r"^(?:that|about|on|to)\s+", "", body, flags=re.I)  # if / whether stay: the reader's question
    return re.sub(r"[\s,，、:：;；]+$", "", body).strip()
