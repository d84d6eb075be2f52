"""Screening raw JSON before it is parsed (SPEC §8): nesting depth and text no database can store.

Pure: the HTTP guard applies it to every request body, the channels to decrypted and embedded payloads.
"""

from __future__ import annotations

import json
import re
from typing import Any

from kernel.errors import DeputyError, Invalid
from kernel.limits import MAX_JSON_DEPTH, json_too_deep, text_problem

# An odd run of backslashes starts an escape; `\\u0000` is an escaped backslash followed by text.
_ESCAPE = rb"(?<!\\)(?:\\\\)*\\"
_NUL = re.compile(rb"\x00|" + _ESCAPE + rb"u0000")
# Surrogate escapes (valid in pairs, as ensure_ascii encoders write emoji) or raw UTF-8-encoded surrogates,
# which Python's JSON decoder lets through; either way the parsed text decides.
_SURROGATE = re.compile(_ESCAPE + rb"u[dD][89a-fA-F]|\xed[\xa0-\xbf]")
NUL_MESSAGE = "text must not contain NUL characters (U+0000)"


class TooDeep(DeputyError):
    status, code = 400, "too_deep"


def screen_json(raw: bytes) -> None:
    """Raise TooDeep or Invalid (naming the field) for JSON text nested too deep or holding unstorable text."""
    if json_too_deep(raw):
        raise TooDeep(f"JSON is nested deeper than {MAX_JSON_DEPTH} levels", field="body")
    has_nul = _NUL.search(raw) is not None
    if not has_nul and _SURROGATE.search(raw) is None:
        return
    try:
        document = json.loads(raw)  # shallow enough now to parse safely
    except ValueError:
        if has_nul:  # a raw NUL byte makes the JSON invalid, but it is still a NUL
            raise Invalid(f"body: {NUL_MESSAGE}", field="body") from None
        return  # not JSON: the route reports it as malformed
    found = _first_bad_text(document)
    if found is not None:
        field, problem = found
        raise Invalid(f"{field}: {problem}", field=field)


def _first_bad_text(document: Any) -> tuple[str, str] | None:
    """(dotted path, problem) of the first string, key or value, that no backend can store."""
    pending: list[tuple[Any, tuple[str, ...]]] = [(document, ())]
    while pending:
        item, path = pending.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                problem = text_problem(key)
                if problem:
                    return ".".join(path) or "body", problem
                pending.append((value, (*path, key)))
        elif isinstance(item, list):
            pending.extend((value, (*path, str(i))) for i, value in reversed(list(enumerate(item))))
        elif isinstance(item, str) and (problem := text_problem(item)):
            return ".".join(path) or "body", problem
    return None
