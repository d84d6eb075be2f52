"""The `deputy` command line: serve, migrate, facts, persons."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from app.settings import Settings

cli = typer.Typer(
    help="Deputy: asks people things for a manager, follows up, and keeps a fact log.", no_args_is_help=True
)
persons_cli = typer.Typer(help="List or import persons.", invoke_without_command=True)
cli.add_typer(persons_cli, name="persons")
console = Console()


def _table(title: str, *columns: str) -> Table:
    """A table whose first column (the record id) is never cut short, however narrow the terminal."""
    table = Table(title=title)
    table.add_column(columns[0], no_wrap=True, min_width=len(columns[0]))
    for name in columns[1:]:
        table.add_column(name)
    return table


@cli.callback()
def _redact_logs() -> None:
    """Keep configured secrets out of whatever any command logs."""
    from app import logging as app_logging

    app_logging.install_redaction(app_logging.secret_values(Settings()))


def _ctx():
    from app.wiring import build_context

    return build_context(Settings())


@cli.command()
def serve(
    host: Annotated[str | None, typer.Option(help="bind address (default DEPUTY_HOST)")] = None,
    port: Annotated[int | None, typer.Option(help="port (default DEPUTY_PORT)")] = None,
) -> None:
    """Apply migrations and run the HTTP service."""
    import uvicorn

    from app import logging as app_logging
    from app.main import create_app

    settings = Settings()
    app_logging.configure(settings.log_level, secrets=app_logging.secret_values(settings))
    # log_config=None: uvicorn adds no handlers, so its access and error logs reach the redacting JSON handler.
    uvicorn.run(create_app(settings), host=host or settings.host, port=port or settings.port, log_config=None)


@cli.command()
def migrate() -> None:
    """Bring the database schema to the latest migration."""
    from app import migrate as migrations

    settings = Settings()
    migrations.upgrade(settings.database_url)
    console.print(f"[green]database is up to date[/green] ({settings.database_url.split('@')[-1]})")


@cli.command()
def facts(
    since: Annotated[str | None, typer.Option(help="look-back like 24h, or ISO datetime")] = None,
    person: Annotated[str | None, typer.Option(help="person id")] = None,
    fact_type: Annotated[str | None, typer.Option("--type", help="fact type")] = None,
    q: Annotated[str | None, typer.Option(help="text to find in the content")] = None,
    limit: Annotated[int, typer.Option(min=1, max=500)] = 50,
) -> None:
    """Show facts newest first."""
    from app.api.deps import parse_instant
    from fact import service
    from kernel.db import dumps
    from kernel.errors import DeputyError

    ctx = _ctx()
    try:
        with ctx.reader() as uow:
            try:
                filters = service.FactFilter(
                    fact_type=fact_type, person_id=person, since=parse_instant(since, field="since", now=uow.now), q=q
                )
            except DeputyError as exc:
                raise typer.BadParameter(exc.message) from exc
            rows, _ = service.list_(uow, filters=filters, limit=limit)
            table = _table(f"{len(rows)} facts", "fact_id", "time", "type", "source", "persons", "content")
            for f in rows:
                table.add_row(
                    f.fact_id,
                    f.timestamp.astimezone(uow.tz).isoformat(timespec="seconds"),
                    f.fact_type,
                    f.source,
                    ",".join(f.person_refs),
                    dumps(f.content)[:120],
                )
    finally:
        ctx.close()
    console.print(table)


@cli.command()
def concerns(
    state: Annotated[str | None, typer.Option(help="waiting_reply, escalated, resolved, cancelled, expired")] = None,
    person: Annotated[str | None, typer.Option(help="originator or target")] = None,
    limit: Annotated[int, typer.Option(min=1, max=500)] = 50,
) -> None:
    """Show concerns newest first."""
    from concern import service

    ctx = _ctx()
    try:
        with ctx.reader() as uow:
            rows, _ = service.list_(uow, state=state, person_id=person, limit=limit)
            table = _table(
                f"{len(rows)} concerns",
                "concern_id",
                "state",
                "originator",
                "target",
                "priority",
                "follow-ups",
                "next",
                "question / answer",
            )
            for c in rows:
                nxt = c.next_follow_up_at.astimezone(uow.tz).strftime("%m-%d %H:%M") if c.next_follow_up_at else ""
                text = c.question + (f" → {c.answer}" if c.answer else "")
                table.add_row(
                    c.concern_id,
                    c.state,
                    c.originator_id,
                    c.target_person_id,
                    c.priority,
                    str(c.follow_up_count),
                    nxt,
                    text[:80],
                )
    finally:
        ctx.close()
    console.print(table)


@persons_cli.callback()
def persons(typer_ctx: typer.Context) -> None:
    """List persons (or use a subcommand)."""
    if typer_ctx.invoked_subcommand is not None:
        return
    from person import service

    ctx = _ctx()
    try:
        with ctx.reader() as uow:
            rows, _ = service.list_(uow, limit=500)
            table = _table(
                f"{len(rows)} persons", "person_id", "name", "role", "manager", "timezone", "channels", "active"
            )
            for p in rows:
                channels = ",".join(
                    f"{b.channel}{'' if b.reachable else '(unreachable)'}"
                    for b in service.bindings_of(uow, person_id=p.person_id)
                )
                table.add_row(
                    p.person_id,
                    p.display_name,
                    p.role,
                    p.manager_id or "",
                    p.timezone,
                    channels,
                    "yes" if p.active else "no",
                )
    finally:
        ctx.close()
    console.print(table)


@persons_cli.command("import")
def import_persons(file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True)]) -> None:
    """Create or update persons from a YAML or CSV file (idempotent on person_id)."""
    from person import importer

    ctx = _ctx()
    try:
        total = len(importer.read_rows(file))
        with Progress(console=console) as progress:
            task = progress.add_task(f"importing {file.name}", total=total)
            results = importer.import_file(ctx, file, actor="cli", on_row=lambda _: progress.advance(task))
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    finally:
        ctx.close()
    counts = {o: sum(1 for r in results if r.outcome == o) for o in ("created", "updated", "unchanged", "error")}
    console.print(" · ".join(f"{k}: {v}" for k, v in counts.items()))
    errors = [r for r in results if r.outcome == "error"]
    if errors:
        table = Table("row", "person_id", "error", title="rows not imported")
        for r in errors:
            table.add_row(str(r.row), r.person_id or "", r.message)
        console.print(table)
        raise typer.Exit(code=1)


@persons_cli.command("sync-feishu")
def sync_feishu() -> None:
    """Create or update persons from the Feishu contacts the app can see (idempotent; managers from leaders)."""
    from app import plugins
    from channels.errors import ChannelError
    from person.directory import DirectoryUser, sync

    ctx = _ctx()
    feishu = plugins.plugin("feishu")
    directory = feishu.directory(ctx.settings, sender=feishu.sender(ctx.settings, redis=ctx.redis)) if feishu else None
    if directory is None:
        ctx.close()
        raise typer.BadParameter("set DEPUTY_FEISHU_APP_ID and DEPUTY_FEISHU_APP_SECRET first")
    try:
        with console.status("reading the Feishu directory"):
            users = [
                DirectoryUser(
                    external_id=u.open_id,
                    name=u.name,
                    en_name=u.en_name,
                    nickname=u.nickname,
                    user_id=u.user_id,
                    leader_external_id=u.leader_open_id,
                    resigned=u.resigned,
                )
                for u in directory.users()
            ]
        with Progress(console=console) as progress:
            task = progress.add_task(f"syncing {len(users)} Feishu users", total=2 * len(users))
            results = sync(ctx, users, channel="feishu", actor="cli", on_step=lambda _: progress.advance(task))
    except ChannelError as exc:
        console.print(f"[red]Feishu refused: {exc.message}[/red]")
        raise typer.Exit(code=1) from exc
    finally:
        ctx.close()
    console.print(
        " · ".join(
            f"{o}: {sum(1 for r in results if r.outcome == o)}"
            for o in ("created", "updated", "unchanged", "skipped", "error")
        )
    )
    errors = [r for r in results if r.outcome == "error"]
    if errors:
        table = _table("users not synced", "open_id", "person_id", "error")
        for r in errors:
            table.add_row(r.external_id, r.person_id or "", r.message)
        console.print(table)
        raise typer.Exit(code=1)


def main() -> None:
    """Entry point of the `deputy` script."""
    cli()


if __name__ == "__main__":
    main()
