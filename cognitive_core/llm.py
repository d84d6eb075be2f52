"""Optional LLM classifier (OpenAI-compatible): rewrites free text the rules did not understand into a command.

The rules stay the authority: a rewrite is used only if the command parser accepts it, and any
failure (timeout, bad answer) falls back to the rules' own answer.
"""

from __future__ import annotations

import logging

import httpx

from cognitive_core.parsing import parse

log = logging.getLogger("deputy.llm")

SYSTEM_PROMPT = (
    "You turn a chat message to an assistant bot into exactly one command line, or NONE.\n"
    "Commands: /ask @person_id question | /tell @person_id text | /concerns | /did | /quiet HH:MM-HH:MM | "
    "/pause 3d | /resume | later 2h | /help.\n"
    "Known people (person_id: names): {people}\n"
    "Answer with the command only, in the message's language for free text parts, or NONE."
)


class OpenAICompatibleClassifier:
    """Calls `POST {base_url}/chat/completions` with a short timeout."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        model: str,
        timeout: float = 5.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )
        self.model = model

    def rewrite(self, text: str, *, people: list[str]) -> str | None:
        """A parseable command for `text`, or None (also on any error)."""
        body = {
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT.format(people="; ".join(people))},
                {"role": "user", "content": text},
            ],
        }
        try:
            response = self._client.post("/chat/completions", json=body)
            response.raise_for_status()
            answer = response.json()["choices"][0]["message"]["content"].strip()
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
            log.warning("llm classifier unavailable: %s", type(exc).__name__)
            return None
        if answer.upper() == "NONE" or parse(answer) is None:
            return None
        return answer

    def close(self) -> None:
        """Release the HTTP connection pool."""
        self._client.close()
