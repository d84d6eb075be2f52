"""Feishu (Lark): send through lark-oapi, receive by webhook or long connection, sync contacts into persons."""

from channels.feishu.channel import FeishuChannel

__all__ = ["FeishuChannel"]
