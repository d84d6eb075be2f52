"""Telegram text built, not concatenated: the visible text and the only markup Deputy adds (bold headers).

Whatever a person wrote is text, never markup: it is escaped for `parse_mode=HTML` as a whole (Bot API
"formatting options": every `<`, `>` and `&` that is not part of a tag or entity must be replaced by
`&lt;`, `&gt;`, `&amp;`), so `<a href=...>` from a colleague arrives as the characters it is. The one markup is
a brief's `**Section**` header line, which becomes `<b>Section</b>`. Lengths and splits are measured on the
visible text (what Telegram counts after parsing), and each part is rendered on its own, so no part ends inside
a tag, an entity or an `&amp;`.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from channels.base import HEADER_LINE
from channels.telegram.text import MAX_ENTITIES, MAX_MESSAGE_UNITS, Span, split_ranges, utf16_len

MAX_CAPTION_UNITS = 1024  # a media caption: "0-1024 characters after entities parsing" (same unit as messages)


@dataclass(frozen=True)
class Styled:
    """Text as Telegram shows it (`plain`) and the spans of it Deputy makes bold (sorted, disjoint)."""

    plain: str
    bold: tuple[Span, ...] = ()

    @property
    def units(self) -> int:
        """The length Telegram checks against its limits."""
        return utf16_len(self.plain)

    def blank(self) -> bool:
        """True when nothing would show (Telegram refuses an empty message)."""
        return not self.plain.strip()

    def html(self) -> str:
        """The text for `parse_mode=HTML`: everything escaped, the bold spans in `<b>`."""
        out, at = [], 0
        for start, end in self.bold:
            out.append(_escape(self.plain[at:start]))
            out.append(f"<b>{_escape(self.plain[start:end])}</b>")
            at = end
        out.append(_escape(self.plain[at:]))
        return "".join(out)

    def piece(self, start: int, end: int) -> Styled:
        """The text from code point `start` to `end`, with the bold spans that fall in it (clipped)."""
        spans = tuple((max(s, start) - start, min(e, end) - start) for s, e in self.bold if s < end and e > start)
        return Styled(self.plain[start:end], spans)


def _escape(text: str) -> str:
    return html.escape(text, quote=False)


def styled(text: str) -> Styled:
    """A Deputy text as Telegram text: `**Header**` lines bold (the markers dropped), everything else literal."""
    plain, bold, at = [], [], 0
    length = 0
    for match in HEADER_LINE.finditer(text):
        before = text[at : match.start()]
        plain.append(before)
        length += len(before)
        header = match.group(1)
        bold.append((length, length + len(header)))
        plain.append(header)
        length += len(header)
        at = match.end()
    plain.append(text[at:])
    return Styled("".join(plain), tuple(bold))


def parts(text: Styled, limit: int = MAX_MESSAGE_UNITS) -> list[Styled]:
    """The messages `text` goes out as: each at most `limit` visible units and MAX_ENTITIES entities, none blank."""
    pieces = [text.piece(a, b) for a, b in split_ranges(text.plain, limit, spans=text.bold, max_spans=MAX_ENTITIES)]
    return [p for p in pieces if not p.blank()]


def caption_and_rest(text: Styled, limit: int = MAX_CAPTION_UNITS) -> tuple[Styled, Styled | None]:
    """A caption is never split: one that is too long is cut at a word, and the rest follows as text message(s)."""
    if text.units <= limit and len(text.bold) <= MAX_ENTITIES:
        return text, None
    cut = split_ranges(text.plain, limit, spans=text.bold, max_spans=MAX_ENTITIES)[0][1]
    return text.piece(0, cut), text.piece(cut, len(text.plain))


def shortened(text: Styled, limit: int, note: str = "") -> Styled:
    """`text` if it fits, else its start cut at a word with "…" after it and `note` on a line of its own (where no
    second message can follow: an edit). The note is plain text; a note too long to leave room is left out."""
    if text.units <= limit and len(text.bold) <= MAX_ENTITIES:
        return text
    tail = f"…\n{note}" if note and utf16_len(note) < limit // 2 else "…"
    head, _ = caption_and_rest(text, limit - utf16_len(tail))
    kept = head.plain.rstrip()
    return Styled(kept + tail, tuple((s, min(e, len(kept))) for s, e in head.bold if s < len(kept)))
