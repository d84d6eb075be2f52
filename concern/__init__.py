"""Concern engine: open loops waiting for someone's reply — raise, follow up on a durable schedule,
escalate, resolve, bring the answer back (backflow). It acts only through the action layer. Not built yet."""
