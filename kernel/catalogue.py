"""The words people read: named catalogues of texts per language, one lookup, one fallback rule, and their checks.

A catalogue lives beside the code that speaks its texts (`concern/replies.py`, `app/console/i18n.py`, …):
`Catalogue(name, {key: {"zh": "…", "en": "…"}})`. Creating one registers it here, so `registered()` walks them all.

The lookup, `Catalogue.text(key, locale, **values)`, takes the reader's locale, else the deployment's default
locale (DEPUTY_DEFAULT_LOCALE, installed by the composition root; "zh" until then), and fills `{name}` fields
with `str.format`. Nothing else: a key that is missing, or an entry in neither language, is a bug (KeyError), never
a silent switch to some other language.

`template(key, locale)` is the same lookup without the filling, for a caller that fills later (`format_map`) or
never did; `Catalogue.columns` builds the entries from rows in a fixed language order (`{key: (en, zh)}`).

`check()` runs every check over every entry of every catalogue and returns the problems found, each naming
catalogue, key and language (tests/unit/test_every_catalogue.py imports every module and fails on any). Shipped:
every entry has a text in every language of LANGUAGES (`missing_language`), and every language of an entry fills
the same `{fields}` (`placeholders`), no text shows a record id, a snake_case internal name or a form label such
as 状态： (`internal_words`), a Chinese text holds no untranslated English word (`english_in_chinese`;
`latin_words`: product and platform names, setting names, ids and bot commands excepted; the console's browser test
applies the same words to every page) and an English text no Chinese characters (`chinese_in_english`). Adding a
check is one function here, `(catalogue, key, entry) -> problems`, decorated with `@rule`; its `allow` is a short
committed allowlist of "catalogue" or "catalogue:key" entries it skips, each with the reason.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

LANGUAGES = ("zh", "en")

_default = "zh"  # the deployment's default locale, until the composition root installs the setting
_REGISTRY: dict[str, Catalogue] = {}


def default_locale() -> str:
    """The deployment's default locale: what a reader whose locale an entry lacks reads."""
    return _default


def set_default_locale(locale: str) -> None:
    """Install the deployment's default locale (the composition root does, from DEPUTY_DEFAULT_LOCALE)."""
    global _default
    if locale not in LANGUAGES:
        raise ValueError(f"unknown locale {locale!r}; one of {', '.join(LANGUAGES)}")
    _default = locale


def pick(entry: Mapping[str, str], locale: str) -> str | None:
    """The one fallback rule: the entry's text in `locale`, else in the default locale, else None."""
    found = entry.get(locale)
    return found if found is not None else entry.get(_default)


class Catalogue(Mapping[str, Mapping[str, str]]):
    """A named table of texts, key → {language: template}; read-only, registered when created."""

    def __init__(self, name: str, entries: Mapping[str, Mapping[str, str]]) -> None:
        if not name or ":" in name:
            raise ValueError(f"a catalogue's name must be non-empty and without ':', not {name!r}")
        if name in _REGISTRY:
            raise ValueError(f"catalogue {name!r} already exists")
        for key, entry in entries.items():
            unknown = set(entry) - set(LANGUAGES)
            if unknown:
                raise ValueError(f"catalogue {name!r}, key {key!r}: unknown language {', '.join(sorted(unknown))}")
        self.name = name
        self._entries = {key: MappingProxyType(dict(entry)) for key, entry in entries.items()}
        _REGISTRY[name] = self

    @classmethod
    def columns(cls, name: str, languages: tuple[str, ...], rows: Mapping[str, tuple[str, ...]]) -> Catalogue:
        """A catalogue from rows of texts in a fixed language order: `("en", "zh")`, {key: (English, Chinese)}."""
        return cls(name, {key: dict(zip(languages, row, strict=True)) for key, row in rows.items()})

    def __getitem__(self, key: str) -> Mapping[str, str]:
        return self._entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Catalogue({self.name!r}, {len(self)} entries)"

    def template(self, key: str, locale: str) -> str:
        """The raw template of `key` for a reader of `locale` (the fallback rule); KeyError when there is none."""
        entry = self._entries.get(key)
        if entry is None:
            raise KeyError(f"catalogue {self.name!r} has no key {key!r}")
        found = pick(entry, locale)
        if found is None:
            raise KeyError(f"catalogue {self.name!r}, key {key!r}: no text in {locale!r} nor in {_default!r}")
        return found

    def text(self, key: str, locale: str, **values: object) -> str:
        """The text of `key` for a reader of `locale`, its `{fields}` filled from `values` (str.format)."""
        return self.template(key, locale).format(**values)


def registered() -> tuple[Catalogue, ...]:
    """Every catalogue created so far (a module's are created when it is imported)."""
    return tuple(_REGISTRY.values())


@dataclass(frozen=True)
class Problem:
    """One thing a check found: where (catalogue, key, language) and what."""

    catalogue: str
    key: str
    language: str | None
    message: str
    check: str = ""

    def __str__(self) -> str:
        where = f"{self.catalogue}:{self.key}" + (f" [{self.language}]" if self.language else "")
        return f"{where}: {self.message} ({self.check})"


CheckFunction = Callable[[Catalogue, str, Mapping[str, str]], Iterable[Problem]]


@dataclass(frozen=True)
class Check:
    """A registered check and its allowlist ("catalogue" or "catalogue:key")."""

    name: str
    run: CheckFunction
    allow: frozenset[str]

    def allows(self, catalogue: str, key: str) -> bool:
        """Whether the allowlist exempts this entry."""
        return catalogue in self.allow or f"{catalogue}:{key}" in self.allow


CHECKS: list[Check] = []


def rule(name: str, *, allow: Iterable[str] = ()) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check function under `name`, skipping the entries its allowlist names."""

    def register(function: CheckFunction) -> CheckFunction:
        CHECKS.append(Check(name, function, frozenset(allow)))
        return function

    return register


def check(catalogues: Iterable[Catalogue] | None = None, checks: Iterable[Check] | None = None) -> list[Problem]:
    """Every problem every check (default: CHECKS) finds in `catalogues` (default: every registered one)."""
    problems: list[Problem] = []
    for cat in registered() if catalogues is None else catalogues:
        for chk in CHECKS if checks is None else checks:
            for key, entry in cat.items():
                if not chk.allows(cat.name, key):
                    problems += [replace(p, check=chk.name) for p in chk.run(cat, key, entry)]
    return problems


@rule("missing_language")
def missing_language(catalogue: Catalogue, key: str, entry: Mapping[str, str]) -> Iterable[Problem]:
    """Every entry has a (non-empty) text in every language of LANGUAGES."""
    return [Problem(catalogue.name, key, lang, "no text in this language") for lang in LANGUAGES if not entry.get(lang)]


def fields(template: str) -> set[str]:
    """The `{field}` names a template fills (`{who}` → who, `{a.b}` → a.b)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@rule("placeholders")
def placeholders(catalogue: Catalogue, key: str, entry: Mapping[str, str]) -> Iterable[Problem]:
    """Every language of an entry fills the same fields: `{name}` in zh but not in en is a bug."""
    problems: list[Problem] = []
    found: dict[str, set[str]] = {}
    for lang, text in entry.items():
        try:
            found[lang] = fields(text)
        except ValueError as exc:  # a lone "{" or "}": str.format would raise when the text is read
            problems.append(Problem(catalogue.name, key, lang, f"not a valid template: {exc}"))
    every = set().union(*found.values()) if found else set()
    for lang, names in found.items():
        if names != every:
            lacking = ", ".join(f"{{{n}}}" for n in sorted(every - names))
            problems.append(Problem(catalogue.name, key, lang, f"lacks {lacking} that another language has"))
    return problems


# Words a reader must never see: record ids, snake_case internal names, form labels (issue 21).
_INTERNAL = re.compile(
    r"\{concern_id\}|\{action_id\}|\bcon_\w+|\b[a-z]+_[a-z_]+\b|状态：|建议：|\bState:|\bSuggestion:"
)
_CJK = re.compile(r"[\u3400-\u9fff]")


# The escalation notices keep their labelled form until they are rewritten; a reminder keeps its id until it carries
# a cancel button (typing /cancel <id> is the only way to cancel it); the language picker names both languages.
@rule(
    "internal_words",
    allow=("concern.reminders:list_item_typed",),  # past the buttons one message carries, the id is what /cancel takes
)
def internal_words(catalogue: Catalogue, key: str, entry: Mapping[str, str]) -> Iterable[Problem]:
    """No text shows a record id, a snake_case internal name or a form label (状态： / 建议：) to a person."""
    return [
        Problem(catalogue.name, key, lang, f"shows {m.group(0)!r}")
        for lang, text in entry.items()
        for m in [_INTERNAL.search(re.sub(r"\{(?!concern_id\}|action_id\})[^{}]*\}", "", text))]
        if m is not None
    ]


# Latin words a Chinese text may show: product and platform names, notations, the language toggle's "English".
LATIN_NAMES = frozenset({"Deputy", "Telegram", "Feishu", "Lark", "ID", "ISO", "HH", "MM", "UTC", "English"})
_LATIN = re.compile(r"[A-Za-z][A-Za-z_]*[A-Za-z]")
# Setting names, record and person ids, bot commands (`/ask`), #tags and @mentions are names, not English.
_NAMES = re.compile(r"\bDEPUTY_[A-Z0-9_]+\b|\b(?:fact|dec|con|act)_[0-9_…]*|\bp_[a-z0-9_…]+|[/@#][A-Za-z_]+")


def latin_words(text: str, *, allowed: Iterable[str] = ()) -> list[str]:
    """The words of `text` in Latin letters that a Chinese reader would see as untranslated English."""
    known = LATIN_NAMES | set(allowed)
    return [word for word in _LATIN.findall(_NAMES.sub(" ", text)) if word not in known]


@rule(
    "english_in_chinese",
    allow=(
        "concern.replies.usage",  # how to type each command: its arguments are the words people type (all, later)
        "concern.replies.help",  # the command list, as people type the commands
        "cognitive_core.brief_texts:more",  # "/brief all" is the command to type
        "cognitive_core.did_texts:more",  # "/did all" is the command to type
        "app.console:first_start_hint",  # names the file var/first-login.txt, as it is on the server
    ),
)
def english_in_chinese(catalogue: Catalogue, key: str, entry: Mapping[str, str]) -> Iterable[Problem]:
    """A Chinese text holds no untranslated English word (names, ids, settings and commands are not words)."""
    words = latin_words(re.sub(r"\{[^{}]*\}?", " ", entry.get("zh") or ""))  # a field's name is no word
    return [Problem(catalogue.name, key, "zh", f"untranslated: {', '.join(words)}")] if words else []


@rule("chinese_in_english", allow=("app.console:language",))  # the language picker names both languages
def chinese_in_english(catalogue: Catalogue, key: str, entry: Mapping[str, str]) -> Iterable[Problem]:
    """An English text carries no Chinese characters (placeholders and quoted words aside)."""
    en = re.sub(r"\{[^{}]*\}|“[^”]*”|\"[^\"]*\"", "", entry.get("en", ""))
    return [Problem(catalogue.name, key, "en", "Chinese characters")] if _CJK.search(en) else []
