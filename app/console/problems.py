"""What was wrong with a form or a request, in the reader's language.

English readers get the validator's own message (it names the limit: "less than or equal to 100"); Chinese
readers get the catalogue's text for the error's type, filled from the validator's context, never English.
"""

from __future__ import annotations

from typing import Any

from kernel.catalogue import Catalogue
from kernel.errors import DeputyError

# key: (English, Chinese). `pydantic.<type>` follow pydantic's error types; `domain.<code>` DeputyError codes.
_PROBLEMS: dict[str, tuple[str, str]] = {
    "pydantic.missing": ("This field is required.", "此项必填。"),
    "pydantic.less_than_equal": ("At most {le}.", "不能大于 {le}。"),
    "pydantic.greater_than_equal": ("At least {ge}.", "不能小于 {ge}。"),
    "pydantic.less_than": ("Less than {lt}.", "必须小于 {lt}。"),
    "pydantic.greater_than": ("More than {gt}.", "必须大于 {gt}。"),
    "pydantic.string_too_long": ("At most {max_length} characters.", "最多 {max_length} 个字符。"),
    "pydantic.string_too_short": ("At least {min_length} characters.", "至少 {min_length} 个字符。"),
    "pydantic.too_long": ("At most {max_length} items.", "最多 {max_length} 项。"),
    "pydantic.int_parsing": ("A whole number, please.", "请输入整数。"),
    "pydantic.int_type": ("A whole number, please.", "请输入整数。"),
    "pydantic.int_from_float": ("A whole number, please.", "请输入整数。"),
    "pydantic.float_type": ("A number, please.", "请输入数字。"),
    "pydantic.float_parsing": ("A number, please.", "请输入数字。"),
    "pydantic.finite_number": ("A number, please.", "请输入数字。"),
    "pydantic.bool_parsing": ("Yes or no.", "请选择是或否。"),
    "pydantic.datetime_parsing": ("A date and time, please.", "请输入日期和时间。"),
    "pydantic.datetime_from_date_parsing": ("A date and time, please.", "请输入日期和时间。"),
    "pydantic.timezone_aware": ("A time with its timezone.", "请输入带时区的时间。"),
    "pydantic.time_parsing": ("A time as HH:MM.", "请按 HH:MM 输入时间。"),
    "pydantic.literal_error": ("One of: {expected}.", "只能是以下之一：{expected}。"),
    "pydantic.enum": ("One of: {expected}.", "只能是以下之一：{expected}。"),
    "pydantic.string_pattern_mismatch": ("Not in the expected form.", "格式不正确。"),
    "pydantic.extra_forbidden": ("Not a known field.", "不是可识别的字段。"),
    "pydantic.value_error": ("Not a valid value.", "该值无效。"),
    "form.window": ("Write each window as HH:MM-HH:MM.", "每个时段请写成 HH:MM-HH:MM。"),
    "form.text": ("This text cannot be stored.", "该文本包含无法保存的字符。"),
    "domain.not_found": ("Not found.", "未找到该记录。"),
    "domain.conflict": ("This conflicts with what is already there.", "与已有数据冲突。"),
    "domain.validation_error": ("Not a valid value.", "该值无效。"),
    "domain.bad_request": ("The request is not valid.", "请求无效。"),
    "domain.forbidden": ("Not allowed.", "无权操作。"),
    "domain.unauthorized": ("Log in first.", "请先登录。"),
    "request.invalid": ("These values are not valid: {fields}.", "以下参数无效：{fields}。"),
}
PROBLEMS = Catalogue.columns("app.console.problems", ("en", "zh"), _PROBLEMS)


def _text(key: str, lang: str, values: dict[str, Any]) -> str:
    template = PROBLEMS.template(key, lang)
    try:
        return template.format(**{k: _plain(v) for k, v in values.items()})
    except (KeyError, IndexError):  # a context without the field this text fills: the type's meaning alone
        return PROBLEMS.template("pydantic.value_error", lang)


def _plain(value: Any) -> str:
    return str(value).replace("'", "")


def validation(error: dict[str, Any], lang: str) -> str:
    """One pydantic error: its own message in English, the catalogue's for its type in Chinese."""
    if lang != "zh":
        return str(error.get("msg", "invalid")).removeprefix("Value error, ")
    key = f"pydantic.{error.get('type')}"
    return _text(key if key in PROBLEMS else "pydantic.value_error", lang, dict(error.get("ctx") or {}))


def form(key: str, lang: str, english: str) -> str:
    """A form parser's own problem (`form.window`, `form.text`): its English message, or the catalogue's."""
    return english if lang != "zh" else PROBLEMS.text(f"form.{key}", lang)


def domain(exc: DeputyError, lang: str) -> str:
    """A service's refusal: its message in English, the meaning of its code in Chinese."""
    if lang != "zh":
        return exc.message
    key = f"domain.{exc.code}"
    return PROBLEMS.text(key if key in PROBLEMS else "domain.bad_request", lang)


def request(fields: list[str], lang: str, english: str) -> str:
    """A request whose parameters did not validate (the console's 422 page)."""
    return english if lang != "zh" else PROBLEMS.text("request.invalid", lang, fields="、".join(fields))
