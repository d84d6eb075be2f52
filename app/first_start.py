"""What `deputy serve` prints first: where the console is, each channel live or dry-run, how to connect one, and,
while no token is configured, the one-time admin login link (as Jenkins and Jupyter do).

The link's code is printed once, by the start that created it, and written to `var/first-login.txt` (mode 0600);
the database keeps only its hash (app.console.store). No page an anonymous visitor can reach ever shows it.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any

from app import plugins
from app.console import store

LOGIN_FILE = "first-login.txt"
LOGIN_PATH = "/console/first-login"
# What connecting each platform takes (docs/configuration.md has the whole of it).
CONNECT = {
    "telegram": "set DEPUTY_TELEGRAM_BOT_TOKEN",
    "feishu": "set DEPUTY_FEISHU_APP_ID and DEPUTY_FEISHU_APP_SECRET",
}


def base_url(settings: Any, *, host: str, port: int) -> str:
    """The address people open: DEPUTY_PUBLIC_URL, else the bound one (a wildcard bind is reached on 127.0.0.1)."""
    if settings.public_url:
        return settings.public_url.rstrip("/")
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    return f"http://{f'[{shown}]' if ':' in shown else shown}:{port}"


def channel_lines(ctx: Any) -> list[str]:
    """One line per installed channel: live, dry-run (logged, not sent) or not connected and what to set."""
    lines = []
    for plugin in plugins.PLUGINS:
        name = plugin.name
        if name in ctx.settings.dry_run_channels:
            state = "dry-run: messages are written to the log, not sent (DEPUTY_DRY_RUN_CHANNELS)"
        elif ctx.channels.get(name) is not None:
            state = "live: messages are sent to the platform"
        else:
            state = f"not connected: {CONNECT.get(name, 'see docs/configuration.md')}"
        lines.append(f"  {name:<9} {state}")
    return lines


def write_login_file(var_dir: Path, link: str, *, expires_at: datetime) -> Path:
    """Write the link to var/first-login.txt, readable and writable by its owner only (0600, also if it existed)."""
    var_dir.mkdir(parents=True, exist_ok=True)
    path = var_dir / LOGIN_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(f"{link}\n# one-time admin login, valid once until {expires_at.isoformat()}\n")
    os.chmod(path, 0o600)
    return path


def login_lines(ctx: Any, *, url: str, var_dir: Path) -> list[str]:
    """With no token configured: a new one-time login link (printed this once), or where the open one is kept."""
    if ctx.settings.token_roles():
        return []
    code, row = store.issue_login_code(ctx.db, now=ctx.clock.now())
    until = row.expires_at.astimezone(ctx.settings.tz).strftime("%Y-%m-%d %H:%M %Z")
    intro = "No DEPUTY_ADMIN_TOKENS or DEPUTY_VIEWER_TOKENS are set, so the console has a one-time admin login:"
    if code is None:
        where = var_dir / LOGIN_FILE
        return [intro, f"  the link issued at an earlier start is in {where} (valid once, until {until})"]
    link = f"{url}{LOGIN_PATH}?login_code={code}"
    try:
        path = write_login_file(var_dir, link, expires_at=row.expires_at)
        kept = f"also written to {path} (readable by this user only)"
    except OSError as exc:  # a read-only filesystem (a locked-down pod): the terminal line is then the only copy
        kept = f"not written to {var_dir / LOGIN_FILE} ({exc.strerror}): copy it from here"
    return [
        intro,
        f"  {link}",
        f"  valid once, until {until}; {kept}",
        "  Set DEPUTY_ADMIN_TOKENS=name:token (docs/configuration.md) to log in for good.",
    ]


def banner(ctx: Any, *, host: str, port: int, var_dir: Path = Path("var")) -> list[str]:
    """The first lines `deputy serve` prints (the migrated database is needed for the one-time login)."""
    url = base_url(ctx.settings, host=host, port=port)
    return [
        f"Deputy is starting on {url}",
        f"  console   {url}/console",
        f"  API docs  {url}/docs",
        "Channels:",
        *channel_lines(ctx),
        "Connect a platform: docs/configuration.md (Telegram: a bot token; Feishu: an app id and secret).",
        *login_lines(ctx, url=url, var_dir=var_dir),
    ]
