"""The Chinese console says every refusal and every code in Chinese: validation errors, 404s, filters, fact lines."""

from __future__ import annotations

import pytest

from kernel.catalogue import latin_words
from tests.console.test_console_people import GOOD, error_beside

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


@pytest.fixture
def zh_admin(admin):
    admin.client.headers.update(ZH)
    return admin


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("max_proactive_contacts_per_day", "500", "不能大于 100。"),
        ("max_proactive_contacts_per_day", "many", "请输入整数。"),
        ("quiet_hours", "late", "每个时段请写成 HH:MM-HH:MM。"),
        ("quiet_days", "9", "不能大于 7。"),
    ],
)
def test_a_bad_policy_value_is_explained_in_chinese_beside_its_field(zh_admin, zhangsan, field, value, expected):
    response = zh_admin.post("/console/persons/p_zhangsan/policy", {**GOOD, field: value})
    assert response.status_code == 422 and "未保存" in response.text
    said = error_beside(response.text, field)
    assert said == expected and latin_words(said) == []


def test_a_taken_id_and_a_missing_record_are_refused_in_chinese(zh_admin, zhangsan):
    form = {"person_id": "p_zhangsan", "display_name": "张三", "role": "member", "locale": "zh"}
    taken = zh_admin.post("/console/persons", form)
    assert taken.status_code == 409 and error_beside(taken.text, "person_id") == "与已有数据冲突。"
    missing = zh_admin.get("/console/concerns/con_20990101_001")
    assert missing.status_code == 404 and "未找到该记录。" in missing.text and "does not exist" not in missing.text


def test_a_bad_filter_names_the_field_in_chinese(zh_admin, zhangsan):
    bad = zh_admin.get("/console/facts?since=yesterday")
    assert bad.status_code == 422 and "筛选条件无效：起始时间。" in bad.text and "ISO 8601" not in bad.text


def test_the_english_console_keeps_the_validators_own_words(admin, zhangsan):
    response = admin.post("/console/persons/p_zhangsan/policy", {**GOOD, "max_proactive_contacts_per_day": "500"})
    assert "less than or equal to 100" in error_beside(response.text, "max_proactive_contacts_per_day")
