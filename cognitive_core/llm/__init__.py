"""The optional LLM: it only proposes. The way in: `worker.dispatch` (asking it off every transaction) and
`proposals.process` (its proposal as a signal: judged by `rules`, answered, or confirmed by the principal first);
`client` is the OpenAI-compatible HTTP client and its pool, imported only when the LLM is configured
(`rules` holds the intents and the `Answer` the rest reads).
"""
