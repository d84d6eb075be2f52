"""Screening raw JSON before it is parsed (SPEC §8): nesting depth and text no database can store.

Pure: the HTTP guard applies it to every request body, the channels to decrypted and embedded payloads.
"""

from __future__ import annotations

import json
import re

from kernel.errors import DeputyError, Invalid
from kernel.limits import MAX_JSON_DEPTH, bad_text, json_too_deep

# An odd run of backslashes starts an escape; `\\u0000` is an escaped backslash followed by text.
_ESCAPE = rb"(?<!\\)(?:\\\\)*\\"
_NUL = re.compile(rb"\x00|" + _ESCAPE + rb"u0000")
# Surrogate escapes (valid in pairs, as ensure_ascii encoders write emoji) or raw UTF-8-encoded surrogates,
# which Python's JSON decoder lets through; either way the parsed text decides.
_SURROGATE = re.compile(_ESCAPE + rb"u[dD][89a-fA-F]|\xed[\xa0-\xbf]")
NUL_MESSAGE = "text must not contain NUL characters (U+0000)"


class TooDeep(DeputyError):
    status, code = 400, "too_deep"


def screen_depth(raw: bytes) -> None:
    """Raise TooDeep for JSON text nested deeper than MAX_JSON_DEPTH (counted on the bytes: nothing recurses)."""
    if json_too_deep(raw):
        raise TooDeep(f"JSON is nested deeper than {MAX_JSON_DEPTH} levels", field="body")


def screen_json(raw: bytes) -> None:
    """Raise TooDeep or Invalid (naming the field) for JSON text nested too deep or holding unstorable text."""
    screen_depth(raw)
    has_nul = _NUL.search(raw) is not None
    if not has_nul and _SURROGATE.search(raw) is None:
        return
    try:
        document = json.loads(raw)  # shallow enough now to parse safely
    except ValueError:
        if has_nul:  # a raw NUL byte makes the JSON invalid, but it is still a NUL
            raise Invalid(f"body: {NUL_MESSAGE}", field="body") from None
        return  # not JSON: the route reports it as malformed
    found = bad_text(document)
    if found is not None:
        field, problem = found
        raise Invalid(f"{field}: {problem}", field=field)
