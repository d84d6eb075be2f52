"""Set-up for the read-state tests: the app over the fake Feishu (and Telegram) with the real SDK clients."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from action.models import ActionRow
from app.main import create_app
from app.wiring import build_context
from fact.models import Fact
from tests.conftest import ADMIN_TOKEN, make_settings
from tests.fakes import feishu_server as fs
from tests.fakes.telegram_server import TOKEN

VTOKEN = "read-vtoken"


def context(database_url: str, clock: Any, feishu: Any, telegram: Any, **overrides: Any) -> Any:
    """The service with both platforms configured against the fakes (plain webhook token, no encryption)."""
    settings = make_settings(
        database_url,
        feishu_app_id=fs.APP_ID,
        feishu_app_secret=fs.APP_SECRET,
        feishu_domain=feishu.domain,
        feishu_verification_token=VTOKEN,
        feishu_bot_open_id="ou_bot",
        telegram_bot_token=TOKEN,
        telegram_api_base=telegram.base_url,
        telegram_webhook_secret="read-tg-secret",
        **overrides,
    )
    return build_context(settings, clock=clock)


def client(ctx: Any) -> TestClient:
    """An admin API client over the context."""
    return TestClient(create_app(ctx=ctx, run_migrations=False), headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})


def ask(api: TestClient, question: str = "提测什么时候能给？", priority: str = "P1") -> str:
    """Raise a loop from p_boss to p_zhangsan through the API; its id."""
    body = {"originator_id": "p_boss", "target_person_id": "p_zhangsan", "question": question, "priority": priority}
    response = api.post("/v1/concerns", json=body)
    assert response.status_code == 201, response.text
    return response.json()["concern_id"]


def deliver(api: TestClient, event: dict[str, Any]) -> None:
    """POST one Feishu event to the webhook as Feishu would (its token in the header)."""
    response = api.post("/webhooks/feishu", content=json.dumps(event).encode())
    assert response.status_code == 200, response.text


def loop(api: TestClient, concern_id: str) -> dict[str, Any]:
    """GET /v1/concerns/{id}."""
    response = api.get(f"/v1/concerns/{concern_id}")
    assert response.status_code == 200
    return response.json()


def actions(ctx: Any, concern_id: str) -> list[ActionRow]:
    """The loop's actions to its target, oldest first."""
    with ctx.reader() as uow:
        stmt = select(ActionRow).where(ActionRow.concern_id == concern_id, ActionRow.target_person_id == "p_zhangsan")
        return list(uow.session.scalars(stmt.order_by(ActionRow.pk)))


def changes(ctx: Any, concern_id: str, change: str) -> list[dict[str, Any]]:
    """The loop's concern_changed facts of one kind, oldest first."""
    with ctx.reader() as uow:
        stmt = select(Fact).where(Fact.fact_type == "concern_changed").order_by(Fact.pk)
        found = [f.content for f in uow.session.scalars(stmt)]
    return [c for c in found if c["concern_id"] == concern_id and c["change"] == change]


def lookups(feishu: Any) -> list[Any]:
    """The read_users requests the fake Feishu received."""
    return [r for r in feishu.requests if r.path.endswith("/read_users")]
