"""Perception layer: turns raw inbound data (Feishu, Telegram, HTTP signals, timers) into signals and
signal facts, resolves the sender through channel bindings, and de-duplicates. It decides nothing
and sends nothing. Not built yet (see the Perception/core/concern issue)."""
