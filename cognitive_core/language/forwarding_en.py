"""English words said about someone, said to them instead (`forwarding.rewrite`'s English half). Pure, no I/O.

The reader's he / she / his / her become you / your with the verb agreeing (`he needs` → `you need`, `is she` →
`are you`, `she's had` → `you've had`); the principal's I / me / my become their name, with the verb agreeing
(`I need` → `Ming needs`); fillers (`um`, `lol`, `pls`) are left out.
"""

from __future__ import annotations

import re

_FILLERS = re.compile(r"\b(?:lol|haha+|um+|uh+|pls|plz|please|like,)\s*", re.I)
# An auxiliary that agrees with he / she, and what it becomes with "you" (`is she` → `are you`, `he was` → `you were`).
_PLURAL = {"is": "are", "was": "were", "does": "do", "has": "have", "isn't": "aren't", "wasn't": "weren't",
           "doesn't": "don't", "hasn't": "haven't"}  # fmt: skip
# `she's had`: the 's is "has" before these participles (`she's tired` stays `you're tired`).
_HAS_PARTICIPLE = r"(?:been|had|got|gotten|done|seen|gone|made|sent|taken|given|written|left|paid|told|heard)\b"
_ADVERB = r"(?:(?:also|always|still|usually|really|just|never|often|sometimes|only|even|already|probably)\s+)?"
_VERB_S = r"(?!always|sometimes|perhaps|thus)[a-z]+s"  # `he lands`, `she needs`: the verb after he / she
# Verbs the principal says of themselves in the present (`I need`): the ones whose past looks different.
_MY_VERBS = (
    "need|want|think|know|like|love|hope|expect|prefer|owe|feel|mean|agree|understand|see|guess|believe|plan"
    "|wonder|suggest|remember|care|mind|appreciate|trust|doubt|miss|recommend|assume|go|do"
)


def addressed(text: str, name: str) -> str:
    """The English words addressed to their reader, the principal named by `name`."""
    text = _FILLERS.sub("", text)
    text = re.sub(r"\b(?:ask|tell) (?:him|her)\b\s*$", "", text, flags=re.I)
    text = _to_you(text)
    return _the_principal(text, name)


def _to_you(text: str) -> str:
    text = re.sub(
        r"\b(is|was|does|has|isn't|wasn't|doesn't|hasn't) (?:he|she)\b",
        lambda m: f"{_keep_case(m.group(1), _PLURAL[m.group(1).lower()])} you",
        text,
        flags=re.I,
    )
    text = re.sub(rf"\b(?:he|she)'s (?={_HAS_PARTICIPLE})", "you've ", text, flags=re.I)
    text = re.sub(r"\b(?:he|she)'s\b", "you're", text, flags=re.I)
    text = re.sub(
        r"\b(?:he|she) (is|was|does|has|isn't|wasn't|doesn't|hasn't)\b",
        lambda m: f"you {_PLURAL[m.group(1).lower()]}",
        text,
        flags=re.I,
    )
    agreeing = rf"\b(?:[Hh]e|[Ss]he)\s+({_ADVERB})({_VERB_S})\b"
    text = re.sub(agreeing, lambda m: f"you {m.group(1)}{_base(m.group(2))}", text)
    text = re.sub(r"\b(?:he|she)\b", "you", text, flags=re.I)
    text = re.sub(r"\bhis\b", "your", text, flags=re.I)
    text = re.sub(
        r"\bher(?=\s+(?!(?:to|about|if|whether|that|and|back|know|on|at|up|a|the)\b)[A-Za-z])", "your", text, flags=re.I
    )
    text = re.sub(r"\b(?:him|her)\b", "you", text, flags=re.I)
    return re.sub(r"\b(?:himself|herself)\b", "yourself", text, flags=re.I)


def _the_principal(text: str, name: str) -> str:
    text = re.sub(r"\bI'm\b|\bI am\b", f"{name} is", text)
    text = re.sub(r"\bI'll\b", f"{name} will", text)
    text = re.sub(r"\bI've\b|\bI have\b", f"{name} has", text)
    text = re.sub(r"\bI don't\b", f"{name} doesn't", text)
    text = re.sub(rf"\bI\s+({_ADVERB})({_MY_VERBS})\b", lambda m: f"{name} {m.group(1)}{_third(m.group(2))}", text)
    text = re.sub(r"\bI\b", name, text)
    text = re.sub(r"\bmy\b", f"{name}'s", text, flags=re.I)
    return re.sub(r"\bme\b", name, text, flags=re.I)


def _keep_case(original: str, word: str) -> str:
    return word.capitalize() if original[0].isupper() else word


def _base(verb: str) -> str:
    """`lands` → `land`, `misses` → `miss`, `watches` → `watch`, `tries` → `try`, `uses` → `use`."""
    if re.search(r"[^aeiou]ies$", verb):
        return verb[:-3] + "y"
    if re.search(r"(?:ss|sh|ch|x|zz|o)es$", verb):
        return verb[:-2]
    return verb[:-1] if not verb.endswith("ss") else verb


def _third(verb: str) -> str:
    """`need` → `needs`, `go` → `goes`, `miss` → `misses`."""
    return verb + ("es" if re.search(r"(?:ss|sh|ch|x|o)$", verb) else "s")
