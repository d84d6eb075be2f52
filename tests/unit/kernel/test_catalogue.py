"""The text catalogue: one lookup, one fallback rule (the reader's locale, then the deployment's), and its checks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kernel import catalogue
from kernel.catalogue import Catalogue, Problem


@pytest.fixture(autouse=True)
def _own_registry_and_default(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The catalogues a test creates leave the registry with it (the walk over every catalogue must not see them)."""
    monkeypatch.setattr(catalogue, "_REGISTRY", dict(catalogue._REGISTRY))
    monkeypatch.setattr(catalogue, "_default", catalogue._default)
    yield


def test_the_process_default_is_chinese_unless_configured():
    assert catalogue.default_locale() == "zh"
    assert catalogue.LANGUAGES == ("zh", "en")


def test_a_text_is_read_in_the_readers_locale_with_its_values():
    words = Catalogue("test.lookup", {"hello": {"zh": "你好，{name}", "en": "Hello, {name}"}})
    assert words.text("hello", "zh", name="张三") == "你好，张三"
    assert words.text("hello", "en", name="Zhang San") == "Hello, Zhang San"
    assert words.template("hello", "en") == "Hello, {name}"


def test_a_locale_without_an_entry_reads_the_deployments_default():
    words = Catalogue("test.fallback", {"hello": {"zh": "你好", "en": "Hello"}, "zh_only": {"zh": "只有中文"}})
    assert words.text("hello", "fr") == "你好"
    catalogue.set_default_locale("en")
    assert catalogue.default_locale() == "en"
    assert words.text("hello", "fr") == "Hello"
    assert words.text("hello", "zh") == "你好"


def test_never_a_silent_switch_to_another_language():
    words = Catalogue("test.no_switch", {"zh_only": {"zh": "只有中文"}})
    catalogue.set_default_locale("en")
    with pytest.raises(KeyError, match="test.no_switch.*zh_only"):
        words.text("zh_only", "en")


def test_a_missing_key_is_a_key_error_naming_catalogue_and_key():
    words = Catalogue("test.missing", {"hello": {"zh": "你好", "en": "Hello"}})
    with pytest.raises(KeyError, match="test.missing.*nope"):
        words.text("nope", "zh")


def test_the_default_locale_is_one_of_the_languages():
    with pytest.raises(ValueError, match="fr"):
        catalogue.set_default_locale("fr")
    assert catalogue.default_locale() == "zh"


def test_the_fallback_rule_applies_to_a_bare_entry_too():
    assert catalogue.pick({"zh": "中", "en": "en"}, "en") == "en"
    assert catalogue.pick({"zh": "中"}, "en") == "中"
    assert catalogue.pick({"en": "en"}, "zh") is None


def test_every_catalogue_registers_itself_once_and_is_read_only():
    words = Catalogue("test.registered", {"hello": {"zh": "你好", "en": "Hello"}})
    assert words in catalogue.registered()
    with pytest.raises(ValueError, match="already exists"):
        Catalogue("test.registered", {})
    with pytest.raises(TypeError):
        words["hello"]["zh"] = "changed"  # type: ignore[index]


def test_an_unknown_language_is_refused_when_the_catalogue_is_made():
    with pytest.raises(ValueError, match="cn"):
        Catalogue("test.typo", {"hello": {"cn": "你好", "en": "Hello"}})


def test_columns_make_entries_from_rows_in_a_language_order():
    words = Catalogue.columns("test.columns", ("en", "zh"), {"save": ("Save", "保存")})
    assert dict(words["save"]) == {"en": "Save", "zh": "保存"}


def test_the_missing_language_check_names_catalogue_key_and_language():
    words = Catalogue(
        "test.check_missing", {"ok": {"zh": "好", "en": "OK"}, "half": {"zh": "一半"}, "blank": {"zh": "空", "en": ""}}
    )
    problems = catalogue.check([words])
    assert [(p.catalogue, p.key, p.language, p.check) for p in problems] == [
        ("test.check_missing", "half", "en", "missing_language"),
        ("test.check_missing", "blank", "en", "missing_language"),
    ]
    assert str(problems[0]) == "test.check_missing:half [en]: no text in this language (missing_language)"


def test_the_placeholder_check_finds_fields_one_language_lacks():
    words = Catalogue(
        "test.check_fields",
        {
            "same": {"zh": "{who}好", "en": "Hi {who}"},
            "differ": {"zh": "{who}问：{text}", "en": "{who} asks"},
            "broken": {"zh": "{who", "en": "{who}"},
        },
    )
    found = {(p.key, p.language, p.check) for p in catalogue.check([words])}
    assert found == {("differ", "en", "placeholders"), ("broken", "zh", "placeholders")}
    [differ] = [p for p in catalogue.check([words]) if p.key == "differ"]
    assert "{text}" in differ.message


def test_a_check_is_one_function_and_its_allowlist_skips_what_it_names(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(catalogue, "CHECKS", list(catalogue.CHECKS))

    @catalogue.rule("no_shouting", allow=("test.shouting:allowed",))
    def no_shouting(cat: Catalogue, key: str, entry: dict[str, str]) -> list[Problem]:
        return [Problem(cat.name, key, lang, "shouts") for lang, text in entry.items() if text.isupper()]

    words = Catalogue("test.shouting", {"loud": {"zh": "好", "en": "OK"}, "allowed": {"zh": "好", "en": "NO"}})
    assert [(p.key, p.language, p.check) for p in catalogue.check([words])] == [("loud", "en", "no_shouting")]
    whole = catalogue.Check("no_shouting", no_shouting, frozenset({"test.shouting"}))
    assert catalogue.check([words], checks=[whole]) == []


def test_chinese_text_with_an_english_word_is_reported_but_names_ids_settings_and_commands_are_not():
    words = Catalogue(
        "test.english_in_chinese",
        {
            "enum": {"zh": "决策 raise_concern · ask", "en": "decision"},
            "message": {"zh": "Input should be less than 100", "en": "Input should be less than 100"},
            "names": {
                "zh": "{who} 在 Telegram 或飞书（Feishu）上，ID p_zhangsan、con_20260318_001，发送 /ask @张三，"
                "设置 DEPUTY_ADMIN_TOKENS，格式 HH:MM",
                "en": "{who}",
            },
        },
    )
    found = {p.key: p.message for p in catalogue.check([words]) if p.check == "english_in_chinese"}
    assert found == {
        "enum": "untranslated: raise_concern, ask",
        "message": "untranslated: Input, should, be, less, than",
    }
    assert catalogue.latin_words("张三 said OK", allowed={"OK"}) == ["said"]
