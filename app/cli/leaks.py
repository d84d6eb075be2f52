"""`deputy leaks`: records written before error texts were redacted may hold a secret; find them, say what to rotate.

Facts cannot be changed (the log is append-only), so a leaked credential is made harmless by rotating it, not by
editing the record. The scan reads every fact and every action's result_detail in pages by primary key, and
checks each record's stored JSON with the same redactor the service uses (kernel.redaction).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

import typer
from pydantic import SecretStr
from sqlalchemy import select

from app.cli import output
from app.settings import Settings

PAGE = 500
# What an operator does about each kind of leak (configured secrets name their own setting).
ADVICE = {
    "telegram_bot_token": "revoke the bot token with @BotFather (/revoke), then set DEPUTY_TELEGRAM_BOT_TOKEN",
    "bearer_credential": "rotate the credential with its issuer (a Feishu tenant_access_token expires within 2 h)",
    "credential_field": "rotate the named credential with its issuer",
    "signed_url": "revoke the signed link at its issuer, or wait for it to expire",
}


def secret_settings(settings: Settings) -> dict[str, str]:
    """{DEPUTY_NAME: value} of every configured secret (one entry per admin/viewer token)."""
    found: dict[str, str] = {}
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        items = value.items() if isinstance(value, dict) else [("", value)]
        for key, item in items:
            if isinstance(item, SecretStr) and item.get_secret_value():
                found[f"DEPUTY_{name.upper()}" + (f" ({key})" if key else "")] = item.get_secret_value()
    return found


def scan(ctx: Any, secrets: dict[str, str]) -> Iterator[dict[str, Any]]:
    """One finding per record holding a secret: which record, which kinds, what to rotate."""
    from action.models import ActionRow
    from fact.models import Fact
    from kernel.db import dumps
    from kernel.redaction import Redactor

    redactor = Redactor()  # patterns only: configured values are matched by name below
    tables = (
        ("fact", Fact, Fact.fact_id, Fact.content),
        ("action", ActionRow, ActionRow.action_id, ActionRow.result_detail),
    )
    for record, model, id_column, column in tables:
        after = 0
        while True:
            with ctx.reader() as uow:
                rows = uow.session.execute(
                    select(model.pk, id_column, column).where(model.pk > after).order_by(model.pk).limit(PAGE)
                ).all()
            for _, record_id, data in rows:
                text = dumps(data)
                kinds = redactor.kinds(text)
                named = [name for name, value in secrets.items() if value in text]
                if kinds or named:
                    advice = [f"rotate {name}" for name in named] + [ADVICE[k] for k in kinds if k in ADVICE]
                    yield {"record": record, "id": record_id, "kinds": kinds, "settings": named, "rotate": advice}
            if len(rows) < PAGE:
                break
            after = rows[-1][0]


def leaks(as_json: Annotated[bool, typer.Option("--json", help="one JSON object per finding")] = False) -> None:
    """Find facts and actions holding a token, secret or signed URL; exit 1 and say what to rotate if any."""
    from app.wiring import build_context

    settings = Settings()
    ctx = build_context(settings)
    try:
        findings = list(scan(ctx, secret_settings(settings)))
    finally:
        ctx.close()
    if as_json:
        output.json_lines(findings)
    elif findings:
        cells = [
            [f["record"], f["id"], ", ".join(f["kinds"] + f["settings"]), "; ".join(f["rotate"])] for f in findings
        ]
        columns = [output.Column("record"), output.Column("id"), output.Column("leaked"), output.Column("rotate")]
        output.table("records holding a secret", columns, cells)
    else:
        output.out().print("no record holds a token, secret or signed URL")
    if findings:
        advice = sorted({a for f in findings for a in f["rotate"]})
        output.err().print(f"{len(findings)} record(s) hold a secret; records cannot be changed: " + "; ".join(advice))
        raise typer.Exit(1)
