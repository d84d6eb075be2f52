"""Fact layer: the append-only log every layer writes to; append and query, never update or delete."""
