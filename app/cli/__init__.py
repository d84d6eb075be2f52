"""The `deputy` command line: serve, migrate, backup, and the records (facts, concerns, persons)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

from app.cli import output
from app.cli import records as cli_records
from app.cli.console import console_cli
from app.cli.leaks import leaks
from app.cli.persons import persons_cli
from app.settings import Settings

PROGRESS_FROM_BYTES = 64 * 1024 * 1024  # below this a backup takes a moment: no progress bar

# No rich tracebacks: they are coloured and print local variables, settings and their secrets included.
cli = typer.Typer(
    help="Deputy: asks people things for a manager, follows up, and keeps a fact log.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
cli.command()(cli_records.facts)
cli.command()(cli_records.concerns)
cli.command()(leaks)
cli.add_typer(persons_cli, name="persons")
cli.add_typer(console_cli, name="console")


def settings() -> Settings:
    """The settings, or one `error:` line naming the bad setting (exit 1)."""
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(f"DEPUTY_{'_'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in exc.errors())
        raise output.fail(f"invalid settings: {problems}") from None


@cli.callback()
def _logging() -> None:
    """Every command logs JSON lines on stderr (no colour codes), configured secrets redacted."""
    from app import logging as app_logging

    current = settings()
    app_logging.configure(current.log_level, secrets=app_logging.secret_values(current))


def _wait_for(url: str, current: Settings) -> None:
    from app.startup import DatabaseUnavailable, wait_for_database

    try:
        wait_for_database(url, timeout=current.database_startup_timeout)
    except DatabaseUnavailable as exc:
        raise output.fail(str(exc)) from None


@cli.command()
def serve(
    host: Annotated[str | None, typer.Option(help="bind address (default DEPUTY_HOST)")] = None,
    port: Annotated[int | None, typer.Option(help="port (default DEPUTY_PORT)")] = None,
    no_processor: Annotated[
        bool, typer.Option("--no-processor", help="serve HTTP only; `deputy process` runs the pipeline elsewhere")
    ] = False,
    processor_thread: Annotated[
        bool, typer.Option("--processor-thread", help="run the pipeline in a thread of this process instead")
    ] = False,
) -> None:
    """Wait for the database (with backoff), apply migrations, start the processor process and serve HTTP."""
    from app import serving

    current = settings()
    _wait_for(current.database_url, current)
    serving.migrate_in_child(current.database_url)  # alembic never loads into the long-lived web process
    in_process = processor_thread or not current.scheduler_enabled
    supervisor = None if no_processor or in_process else serving.Supervisor().start()
    try:
        serving.serve_http(current, host=host, port=port, processor=in_process)
    finally:
        if supervisor is not None:
            supervisor.stop()


@cli.command()
def process(
    parent_pid: Annotated[int | None, typer.Option(hidden=True, help="stop when this process is gone")] = None,
) -> None:
    """Run the pipeline (signals, timers, the outbox) without HTTP; any number of them share PostgreSQL."""
    from app import processes
    from app.wiring import build_context

    current = settings()
    _wait_for(current.database_url, current)
    ctx = build_context(current)
    try:
        processes.run_processor(ctx, parent_pid=parent_pid)
    finally:
        ctx.close()


@cli.command()
def migrate() -> None:
    """Bring the schema to the latest migration as DEPUTY_MIGRATION_DATABASE_URL (else DEPUTY_DATABASE_URL)."""
    from sqlalchemy.engine import make_url

    from app import migrate as migrations

    current = settings()
    url = current.migration_database_url or current.database_url
    _wait_for(url, current)
    migrations.upgrade(url)
    shown = make_url(url).render_as_string(hide_password=True)
    output.out().print(f"database is up to date ({shown})")


@cli.command()
def backup(
    file: Annotated[Path, typer.Argument(dir_okay=False, help="where to write the copy")],
    force: Annotated[bool, typer.Option("--force", help="replace FILE if it exists")] = False,
    progress: Annotated[
        bool | None, typer.Option("--progress/--no-progress", help="show progress (default: for large databases)")
    ] = None,
) -> None:
    """Copy the live embedded SQLite database consistently while the service runs; the copy is integrity-checked."""
    from app.backup import BackupError, sqlite_path
    from app.backup import backup as take_backup

    current = settings()
    try:
        size = sqlite_path(current.database_url).stat().st_size if progress is None else 0
    except (BackupError, OSError):
        size = 0  # take_backup says what is wrong
    show = progress if progress is not None else size >= PROGRESS_FROM_BYTES
    reporter = _Percent() if show else None
    try:
        result = take_backup(current.database_url, file, overwrite=force, on_progress=reporter)
    except BackupError as exc:
        raise output.fail(str(exc)) from None
    mib = result.bytes / 1024 / 1024
    output.out().print(
        f"backed up {result.source} to {result.target}: {result.pages} pages, {mib:.1f} MiB, "
        f"integrity_check {result.integrity}"
        + (f"; its inbound queue to {result.queue}" if result.queue is not None else "")
    )


class _Percent:
    """Progress on stderr, one line per tenth (readable in a terminal and in a log file alike)."""

    def __init__(self) -> None:
        self.shown = -1

    def __call__(self, copied: int, total: int) -> None:
        tenth = copied * 10 // max(total, 1)
        if tenth != self.shown:
            self.shown = tenth
            typer.echo(f"backup: {copied}/{total} pages ({tenth * 10}%)", err=True)


def main() -> None:
    """Entry point of the `deputy` script: a database that refuses is one `error:` line, not a traceback."""
    from sqlalchemy.exc import DBAPIError, OperationalError, ProgrammingError

    try:
        cli()
    except (OperationalError, ProgrammingError, DBAPIError) as exc:
        reason = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
        hint = "; run `deputy migrate` first" if "no such table" in reason or "does not exist" in reason else ""
        typer.echo(f"error: the database refused: {reason}{hint}", err=True)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
