"""Who a message names: people found anywhere in free text, and close guesses for a name nobody has. Pure.

A person is named by display name, alias, person id (with or without `p_`), an @mention or a platform mention
(the signal's mention list maps a platform name to a bound external id). Among overlapping candidates the longest
wins ("张三丰" over "张三"); ASCII names only match on word boundaries ("Li" is not in "Lisa"). Texts are
read in simplified form (see `phrasing.simplified`) so "張三" names 张三.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cognitive_core.language.phrasing import simplified

if TYPE_CHECKING:
    from cognitive_core.situation import PersonView

# Chinese nickname frames: 小张 / 老张 / 阿张 / 张总 / 张工 / 张哥 / 张老师 name someone by the surname.
_NICK_PREFIX = ("小", "老", "阿")
_NICK_SUFFIX = ("老师", "经理", "总", "工", "哥", "姐", "sir")
# The common surnames, and characters that after one make a word rather than a name ("周会", "王牌", "高手").
_SURNAMES = set(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾"
    "夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
)
_NOT_GIVEN = set(
    "会议末报年月日天点号个次些样么们家里边面上下前后中内外总工哥姐老师经理部门牌手一二三四五六七八九十案价格期题目间份量况度法式场时线务品"
)
_COMPOUND = {"欧阳", "司马", "诸葛", "上官", "慕容", "东方", "令狐", "皇甫", "尉迟", "公孙", "夏侯", "长孙", "宇文"}
FUZZY_CUTOFF = 0.6  # difflib ratio for a spelling slip ("Zhang Shan", "Zhnag San", "张叁")
MAX_SUGGESTIONS = 3


@dataclass(frozen=True)
class Named:
    """A person named in a text, and where (start, end) and by which words."""

    person: PersonView
    start: int
    end: int
    words: str


def find_person(
    who: str, people: tuple[PersonView, ...], mentions: tuple[tuple[str | None, str], ...] = ()
) -> PersonView | None:
    """The person `who` names exactly: person id, display name, alias or platform mention (case-insensitive)."""
    key = who.strip().lstrip("@").strip().casefold()
    for ext_id, name in mentions:
        if name.strip().lstrip("@").casefold() == key and ext_id:
            for person in people:
                if any(e == ext_id for _, e in person.external_ids):
                    return person
    for person in people:
        names = {
            person.person_id.casefold(),
            person.person_id.removeprefix("p_").casefold(),
            person.display_name.casefold(),
            *(a.casefold() for a in person.aliases),
        }
        if key in names:
            return person
    return None


def _words_of(person: PersonView) -> set[str]:
    words = {person.display_name, person.person_id, person.person_id.removeprefix("p_"), *person.aliases}
    return {simplified(w).strip() for w in words if w and w.strip()}


def _pattern(word: str) -> re.Pattern:
    escaped = re.escape(word).replace(r"\ ", r"\s*")  # "Zhang San" also as "ZhangSan"
    if word.isascii():
        return re.compile(rf"(?<![A-Za-z0-9_]){escaped}(?![A-Za-z0-9_])", re.I)
    return re.compile(escaped, re.I)


def named(text: str, people: tuple[PersonView, ...], mentions: tuple[tuple[str | None, str], ...] = ()) -> list[Named]:
    """Every person `text` names, in text order, overlaps resolved to the longest match."""
    candidates: list[tuple[str, PersonView]] = [(w, p) for p in people for w in _words_of(p)]
    for ext_id, name in mentions:  # a platform mention: its shown name stands for whoever is bound to it
        person = next((p for p in people if ext_id and any(e == ext_id for _, e in p.external_ids)), None)
        if person is not None and name.strip().lstrip("@"):
            candidates.append((simplified(name.strip().lstrip("@")), person))
    found: list[Named] = []
    for word, person in candidates:
        for m in _pattern(word).finditer(text):
            found.append(Named(person, m.start(), m.end(), text[m.start() : m.end()]))
    found.sort(key=lambda n: (-(n.end - n.start), n.start))
    kept: list[Named] = []
    for n in found:
        if all(n.end <= k.start or n.start >= k.end for k in kept):
            kept.append(n)
    # "@张三": the @ belongs to the mention
    return sorted(
        (
            (Named(n.person, n.start - 1, n.end, "@" + n.words) if n.start and text[n.start - 1] in "@＠" else n)
            for n in kept
        ),
        key=lambda n: n.start,
    )


def _nickname_core(word: str) -> str:
    core = word
    for prefix in _NICK_PREFIX:
        if core.startswith(prefix) and len(core) > len(prefix):
            core = core[len(prefix) :]
            break
    for suffix in _NICK_SUFFIX:
        if core.endswith(suffix) and len(core) > len(suffix):
            core = core[: -len(suffix)]
            break
    return core


def nickname(word: str) -> bool:
    """小刘 / 老王 / 张总 / 李工: a Chinese way to name someone by the surname."""
    return not word.isascii() and _nickname_core(word) != word and len(_nickname_core(word)) == 1


def looks_like_name(word: str) -> bool:
    """孙悦 / 吴昊 / 欧阳锋: two or three Chinese characters that read as a surname and a given name."""
    if not 2 <= len(word) <= 3 or word.isascii():
        return False
    given = word[2:] if word[:2] in _COMPOUND else word[1:] if word[0] in _SURNAMES else ""
    return bool(given) and not any(ch in _NOT_GIVEN for ch in given)


def three_character_name(word: str) -> bool:
    """钱多多 / 马冬梅 / 欧阳锋 rather than 钱多 / 马冬 / 欧阳: a compound surname or a doubled given name."""
    return len(word) == 3 and looks_like_name(word) and (word[:2] in _COMPOUND or word[1] == word[2])


def _score(word: str, person: PersonView) -> float:
    key = simplified(word).casefold().strip().lstrip("@")
    best = 0.0
    for candidate in _words_of(person):
        cand = candidate.casefold()
        best = max(best, difflib.SequenceMatcher(None, key, cand).ratio())
        core = _nickname_core(key)
        if core != key and not core.isascii() and cand.startswith(core):  # 小张 → 张三, 张总 → 张伟
            best = max(best, 0.8)
        same_shape = len(key) == len(cand) and not key.isascii() and not cand.isascii()
        if same_shape and key[0] == cand[0]:  # 张山 / 张叁 → 张三: the surname right, a slip in the given name
            best = max(best, 0.7)
    return best


def suggest(word: str, people: tuple[PersonView, ...], *, exclude: str | None = None) -> list[PersonView]:
    """The people `word` most likely means (best first, at most MAX_SUGGESTIONS), or none close enough."""
    scored = [(_score(word, p), p.display_name, p) for p in people if p.person_id != exclude]
    close = sorted((s for s in scored if s[0] >= FUZZY_CUTOFF), key=lambda s: (-s[0], s[1]))
    return [p for _, _, p in close[:MAX_SUGGESTIONS]]
