"""`deputy console …`: the console's credentials kept in the database (never printed: there is nothing to show)."""

from __future__ import annotations

import typer

from app.cli import output

console_cli = typer.Typer(help="The admin console's credentials.", no_args_is_help=True)


@console_cli.command("rotate-secret")
def rotate_secret() -> None:
    """Replace the key that signs console sessions: every session ends, on every replica within 30 s."""
    from app.cli import settings as load_settings
    from app.console import store
    from app.console.auth import KEY_REFRESH
    from kernel.clock import SystemClock
    from kernel.db import Database

    current = load_settings()
    db = Database(current.database_url)
    try:
        store.rotate_signing_key(db, now=SystemClock().now())
    finally:
        db.dispose()
    seconds = int(KEY_REFRESH.total_seconds())
    output.out().print(f"console signing key rotated: every console session ends (each replica within {seconds}s)")
    if current.console_secret:
        output.out().print("note: DEPUTY_CONSOLE_SECRET is set: it signs the sessions, the database key is unused")
