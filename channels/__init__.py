"""Channels: Feishu, Telegram and internal adapters behind one interface; they send, receive and map
platform errors into one small error taxonomy, and know nothing of concerns or policies. Not built yet."""
