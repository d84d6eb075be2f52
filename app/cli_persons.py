"""`deputy persons`: list them (table or JSON lines), import a YAML or CSV file, sync from the Feishu directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress

from app import cli_output as output
from app.cli_records import Json, list_persons
from app.settings import Settings

persons_cli = typer.Typer(help="List, import or sync persons.", invoke_without_command=True)


def _context():
    from app.wiring import build_context

    return build_context(Settings())


@persons_cli.callback()
def persons(typer_ctx: typer.Context, as_json: Json = False) -> None:
    """List persons (or use a subcommand)."""
    if typer_ctx.invoked_subcommand is None:
        list_persons(as_json)


def _counts(results, outcomes: tuple[str, ...]) -> str:
    return " · ".join(f"{o}: {sum(1 for r in results if r.outcome == o)}" for o in outcomes)


@persons_cli.command("import")
def import_persons(file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True)]) -> None:
    """Create or update persons from a YAML or CSV file (idempotent on person_id); exit 1 if any row failed."""
    from person import importer

    try:
        total = len(importer.read_rows(file))
    except importer.ImportFileError as exc:  # malformed, empty, of the wrong shape, not UTF-8: one line, no trace
        raise output.fail(str(exc)) from None
    except ValueError as exc:  # not a YAML or CSV file at all: a usage error
        raise typer.BadParameter(str(exc), param_hint="FILE") from None
    ctx = _context()
    try:
        with Progress(console=output.err(), transient=True) as progress:
            task = progress.add_task(f"importing {file.name}", total=total)
            results = importer.import_file(ctx, file, actor="cli", on_row=lambda _: progress.advance(task))
    finally:
        ctx.close()
    output.out().print(_counts(results, ("created", "updated", "unchanged", "error")))
    errors = [r for r in results if r.outcome == "error"]
    if errors:
        columns = [output.Column("row", keep=9, whole=True), output.Column("person_id", keep=8, whole=True)]
        columns.append(output.Column("error", keep=7, min_width=30))
        output.table("rows not imported", columns, [[str(r.row), r.person_id or "", r.message] for r in errors])
        raise typer.Exit(code=1)


@persons_cli.command("sync-feishu")
def sync_feishu() -> None:
    """Create or update persons from the Feishu contacts the app can see (idempotent; managers from leaders)."""
    from app import plugins
    from channels.errors import ChannelError
    from person.directory import DirectoryUser, sync

    ctx = _context()
    feishu = plugins.plugin("feishu")
    directory = feishu.directory(ctx.settings, sender=feishu.sender(ctx.settings, redis=ctx.redis)) if feishu else None
    if directory is None:
        ctx.close()
        raise typer.BadParameter("set DEPUTY_FEISHU_APP_ID and DEPUTY_FEISHU_APP_SECRET first")
    try:
        with output.err().status("reading the Feishu directory"):
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
        with Progress(console=output.err(), transient=True) as progress:
            task = progress.add_task(f"syncing {len(users)} Feishu users", total=2 * len(users))
            results = sync(ctx, users, channel="feishu", actor="cli", on_step=lambda _: progress.advance(task))
    except ChannelError as exc:
        raise output.fail(f"Feishu refused: {exc.message}") from None
    finally:
        ctx.close()
    output.out().print(_counts(results, ("created", "updated", "unchanged", "skipped", "error")))
    errors = [r for r in results if r.outcome == "error"]
    if errors:
        columns = [output.Column("open_id", keep=9, whole=True), output.Column("person_id", keep=8, whole=True)]
        columns.append(output.Column("error", keep=7, min_width=30))
        output.table("users not synced", columns, [[r.external_id, r.person_id or "", r.message] for r in errors])
        raise typer.Exit(code=1)
