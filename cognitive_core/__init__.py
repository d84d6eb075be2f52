"""Cognitive core: the single place that decides. Rules first (deterministic, no network), an optional
LLM classifier only when configured; every decision (dec_…) is recorded as a fact. It never talks to
channels and owns no concern state. Not built yet."""
