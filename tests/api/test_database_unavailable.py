"""Failure answers are honest: a database that refuses writes (a full disk, simulated with SQLite's
PRAGMA max_page_count) or cannot be reached answers 503 with Retry-After on the API and on webhooks, never a
bare 500; /readyz is 503 while writes fail and 200 again once one succeeds."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, text

from app.main import create_app
from app.wiring import build_context
from tests.api.test_telegram_webhook import OK, build_ctx, update
from tests.conftest import ADMIN_TOKEN, make_settings

BIG = "满" * 20_000  # a signal a few pages long: it cannot fit in a database that may not grow


def _signal(n: int) -> dict:
    return {"source": "ci", "signal_type": "build_failed", "external_id": f"b-{n}", "content": {"log": BIG}}


class FullDisk:
    """Every new connection of the engine may not grow the file past its present size."""

    def __init__(self, engine) -> None:
        self.engine = engine
        with engine.connect() as conn:
            self.pages = conn.execute(text("PRAGMA page_count")).scalar_one()
        event.listen(engine, "connect", self._limit)
        engine.dispose()

    def _limit(self, dbapi_connection, _record) -> None:
        dbapi_connection.execute(f"PRAGMA max_page_count = {self.pages}")

    def free(self) -> None:
        event.remove(self.engine, "connect", self._limit)
        self.engine.dispose()


@pytest.fixture
def tg_ctx(database_url, clock):
    if not database_url.startswith("sqlite"):
        pytest.skip("PRAGMA max_page_count is SQLite's; PostgreSQL's outage is the unreachable test below")
    context = build_ctx(database_url, clock)
    yield context
    context.close()


def test_a_full_disk_is_503_with_retry_after_and_readyz_follows_the_writes(tg_ctx):
    with TestClient(
        create_app(ctx=tg_ctx, run_migrations=False),
        raise_server_exceptions=False,
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
    ) as client:
        assert client.get("/readyz").status_code == 200
        disk, queue = FullDisk(tg_ctx.db.engine), FullDisk(tg_ctx.db.queue_engine)  # one disk for both files
        refused = client.post("/v1/signals", json=_signal(1))
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
        assert refused.json()["error"]["code"] == "database_unavailable"
        webhook = client.post("/webhooks/telegram", json=update(text=BIG), headers=OK)
        assert webhook.status_code == 503 and webhook.headers["Retry-After"] == "5"  # Telegram delivers it again
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["db"] == "writes_failing"
        assert client.get("/healthz").status_code == 200  # liveness: the process is fine, no restart
        disk.free(), queue.free()
        assert client.post("/v1/signals", json=_signal(2)).status_code == 202
        assert client.get("/readyz").status_code == 200
        assert client.post("/webhooks/telegram", json=update(text=BIG), headers=OK).status_code == 200


class Outage:
    """From now on every new connection goes to a database nobody serves (port 1; a directory that is not there)."""

    def __init__(self, db) -> None:
        self.engines = {db.engine, db.read_engine}
        for engine in self.engines:
            event.listen(engine, "do_connect", self._elsewhere)
            engine.dispose()

    @staticmethod
    def _elsewhere(dialect, _record, cargs, cparams) -> None:
        if dialect.name == "postgresql":
            cparams.update(port=1, connect_timeout=1)
        else:
            cargs[:] = ["/nonexistent/deputy/outage.db"]

    def end(self) -> None:
        for engine in self.engines:
            event.remove(engine, "do_connect", self._elsewhere)
            engine.dispose()


def test_an_unreachable_database_is_503_with_retry_after_not_a_500(database_url, clock):
    ctx = build_context(make_settings(database_url), clock=clock)
    try:
        with TestClient(
            create_app(ctx=ctx, run_migrations=False),
            raise_server_exceptions=False,
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        ) as client:
            outage = Outage(ctx.db)
            for method, path, body in (("GET", "/v1/facts", None), ("POST", "/v1/signals", _signal(3))):
                answer = client.request(method, path, json=body)
                assert answer.status_code == 503, answer.text
                assert answer.headers["Retry-After"] == "5"
                assert answer.json()["error"]["code"] == "database_unavailable"
            assert client.get("/readyz").status_code == 503
            outage.end()
            assert client.post("/v1/signals", json=_signal(3)).status_code == 202  # nothing half-written before
            assert client.get("/readyz").status_code == 200
    finally:
        ctx.close()
