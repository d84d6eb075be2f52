"""Media answers: how a photo, file or voice note is described where it cannot be passed on as itself (pure)."""

from __future__ import annotations

from typing import Any

from kernel.catalogue import Catalogue

# kind: (Chinese, English); a kind not listed reads as an attachment.
_KINDS = {
    "photo": ("图片", "photo"),
    "image": ("图片", "image"),
    "document": ("文件", "file"),
    "file": ("文件", "file"),
    "voice": ("语音", "voice note"),
    "audio": ("音频", "audio"),
    "video": ("视频", "video"),
    "sticker": ("表情", "sticker"),
    "post": ("图文消息", "rich message"),
    "attachment": ("附件", "attachment"),
}
KINDS = Catalogue.columns("concern.media", ("zh", "en"), _KINDS)


def kind_name(kind: str, locale: str) -> str:
    """`图片` / `photo`."""
    return KINDS.text(kind if kind in KINDS else "attachment", locale)


def size_text(size: int | None) -> str:
    """`1.2 MB` / `860 KB` (empty when unknown)."""
    if not size:
        return ""
    if size >= 1024 * 1024:
        return f"{size / 1024 / 1024:.1f} MB"
    return f"{max(1, round(size / 1024))} KB"


def placeholder(kind: str, locale: str) -> str:
    """What stands for a media answer without a caption: `[图片]` / `[photo]`."""
    return f"[{kind_name(kind, locale)}]"


def note(media: dict[str, Any], locale: str) -> str:
    """A text note for another platform: kind, file name and size; never a link (it would need a token)."""
    parts = [kind_name(media.get("kind", ""), locale), media.get("file_name") or "", size_text(media.get("size"))]
    detail = " · ".join(p for p in parts if p)
    return (
        f"（附{detail}，请在原平台查看）" if locale == "zh" else f"(with a {detail}; open it on the original platform)"
    )


def forwardable(content: dict[str, Any]) -> dict[str, Any] | None:
    """The channels.base.MediaRef fields of a received message's media, or None when it carried none."""
    media = content.get("media")
    if not media:
        return None
    return {
        "channel": content["channel"],
        "kind": media["kind"],
        "file_id": media.get("file_id", ""),
        "message_id": content["message_id"],
        "chat_id": content["chat_id"],
        "caption": content.get("text", ""),
        "file_name": media.get("file_name"),
        "mime_type": media.get("mime_type"),
        "size": media.get("size"),
    }
