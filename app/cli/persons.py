"""`deputy persons`: list them (table or JSON lines), import a YAML or CSV file, sync from a platform's directory.

Each channel plugin that offers a contact directory gets `deputy persons sync --channel <name>` and its own
`deputy persons sync-<name>` (`sync-feishu`).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress

from app.cli import output
from app.cli.records import Json, list_persons
from app.settings import Settings
from kernel import channel_names

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


def _sync(channel: str) -> None:
    """Create or update persons from the contact directory of `channel`'s plugin; exit 1 if any user failed."""
    from app import plugins
    from channels.errors import ChannelError
    from person.directory import DirectoryUser, sync

    platform, plugin = channel_names.platform(channel), plugins.plugin(channel)
    if platform is None or plugin is None or not platform.directory:
        offered = ", ".join(p.name for p in channel_names.platforms() if p.directory) or "none"
        raise typer.BadParameter(f"{channel!r} has no contact directory; channels with one: {offered}")
    ctx = _context()
    directory = plugin.directory(ctx.settings, sender=plugin.sender(ctx.settings, redis=ctx.redis))
    name = platform.display_name("en")
    if directory is None:
        ctx.close()
        raise typer.BadParameter(f"set {plugin.configure_hint or f'the {name} settings'} first")
    try:
        with output.err().status(f"reading the {name} directory"):
            users = [DirectoryUser(**asdict(contact)) for contact in directory.users()]
        with Progress(console=output.err(), transient=True) as progress:
            task = progress.add_task(f"syncing {len(users)} {name} users", total=2 * len(users))
            results = sync(ctx, users, channel=channel, actor="cli", on_step=lambda _: progress.advance(task))
    except ChannelError as exc:
        raise output.fail(f"{name} refused: {exc.message}") from None
    finally:
        ctx.close()
    output.out().print(_counts(results, ("created", "updated", "unchanged", "skipped", "error")))
    errors = [r for r in results if r.outcome == "error"]
    if errors:
        columns = [output.Column(platform.binding_columns[0], keep=9, whole=True)]
        columns += [output.Column("person_id", keep=8, whole=True), output.Column("error", keep=7, min_width=30)]
        output.table("users not synced", columns, [[r.external_id, r.person_id or "", r.message] for r in errors])
        raise typer.Exit(code=1)


@persons_cli.command("sync")
def sync_directory(
    channel: Annotated[str, typer.Option("--channel", help="An installed channel with a contact directory.")],
) -> None:
    """Create or update persons from a channel's contact directory (idempotent; managers from leaders)."""
    _sync(channel)


def _sync_command(channel: str, name: str) -> None:
    """`deputy persons sync-<channel>`: the same sync, for each plugin that offers a directory."""

    def command() -> None:
        _sync(channel)

    command.__doc__ = (
        f"Create or update persons from the {name} contacts the app can see (idempotent; managers from leaders)."
    )
    persons_cli.command(f"sync-{channel}")(command)


for _platform in channel_names.platforms():
    if _platform.directory:
        _sync_command(_platform.name, _platform.display_name("en"))
