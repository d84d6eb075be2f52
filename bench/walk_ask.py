"""The walk of one `/ask`: which files a reader opens and how often the path crosses between core and concern.

A principal sends `/ask @p_zhangsan 提测什么时候能给？` to the Telegram webhook; one pipeline pass processes it,
sends the question (dry run) and the principal's confirmation. A profile hook on every thread records each call
into a function of this repository. Printed:

- functions and files: the distinct functions that ran and their source files (what a reader following the calls
  opens), by package;
- crossings: distinct caller → callee pairs where a function of `cognitive_core` calls one of `concern` (down)
  or one of `concern` calls one of `cognitive_core` (up: through a callback or a port), and the number of such
  calls made; and the core's direct calls into `action`.

Usage: python bench/walk_ask.py [--files] (lists every file)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
LAYERS = ("cognitive_core", "concern")
PACKAGES = ("app", "kernel", "fact", "person", "perception", "cognitive_core", "concern", "action", "channels")


def _package(filename: str) -> tuple[str, str] | None:
    """(top package, path) of a repository source file, None for anything else (libraries, tests, bench)."""
    try:
        rel = Path(filename).resolve().relative_to(ROOT)
    except ValueError:
        return None
    if rel.parts[0] not in PACKAGES or rel.suffix != ".py":
        return None
    return rel.parts[0], str(rel)


class Walk:
    """Records calls between repository functions (caller and callee each named by file and function)."""

    def __init__(self) -> None:
        self.files: set[tuple[str, str]] = set()
        self.functions: set[tuple[str, str]] = set()
        self.edges: Counter[tuple[str, str, str, str]] = Counter()

    def __call__(self, frame, event, _arg) -> None:
        if event != "call":
            return
        callee = _package(frame.f_code.co_filename)
        if callee is None:
            return
        self.files.add(callee)
        self.functions.add((callee[1], frame.f_code.co_name))
        caller_frame = frame.f_back
        while caller_frame is not None and _package(caller_frame.f_code.co_filename) is None:
            caller_frame = caller_frame.f_back  # through a library (SQLAlchemy, a decorator) to our caller
        if caller_frame is None:
            return
        caller = _package(caller_frame.f_code.co_filename)
        if caller[0] != callee[0] and caller[0] in LAYERS and callee[0] in (*LAYERS, "action"):
            key = (caller[1], caller_frame.f_code.co_name, callee[1], frame.f_code.co_name)
            self.edges[key] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", action="store_true", help="list every file the walk opens")
    args = parser.parse_args()

    from fastapi.testclient import TestClient

    from app import migrate
    from app.main import create_app
    from app.pipeline import tick
    from app.settings import Settings
    from app.wiring import build_context
    from person import service as persons
    from person.models import PersonCreate

    folder = Path(tempfile.mkdtemp(prefix="walk_"))
    url = f"sqlite:///{folder / 'walk.db'}"
    migrate.upgrade(url)
    settings = Settings(
        _env_file=None,
        database_url=url,
        telegram_webhook_secret="walk-secret-0123456789",
        dry_run_channels=["telegram", "feishu"],
        scheduler_enabled=False,
        timezone="Asia/Shanghai",
    )
    ctx = build_context(settings)
    people = [
        {"person_id": "p_boss", "display_name": "老板", "role": "principal", "tg": "1001"},
        {"person_id": "p_zhangsan", "display_name": "张三", "role": "member", "tg": "1002"},
    ]
    with ctx.uow(actor="walk") as uow:
        for p in people:
            binding = {"channel": "telegram", "external_user_id": p["tg"], "chat_id": p["tg"]}
            data = {k: v for k, v in p.items() if k != "tg"} | {
                "channel_bindings": [binding],
                "interaction_policy": {"quiet_hours": []},
            }
            persons.create(uow, data=PersonCreate.model_validate(data))
    update = {
        "update_id": 1,
        "message": {
            "message_id": 11,
            "date": 1773799200,
            "chat": {"id": 1001, "type": "private"},
            "from": {"id": 1001, "is_bot": False, "first_name": "Boss"},
            "text": "/ask @p_zhangsan 提测什么时候能给？",
        },
    }
    walk = Walk()
    with TestClient(create_app(ctx=ctx, run_migrations=False)) as client:
        threading.setprofile(walk)
        sys.setprofile(walk)
        answer = client.post(
            "/webhooks/telegram", json=update, headers={"X-Telegram-Bot-Api-Secret-Token": "walk-secret-0123456789"}
        )
        tick(ctx)
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    assert answer.status_code == 200, answer.text
    with ctx.reader() as uow:
        from sqlalchemy import select

        from action.models import ActionRow

        sent = [(r.target_person_id, r.content_preview) for r in uow.session.scalars(select(ActionRow))]
    ctx.close()
    assert any(p == "p_boss" for p, _ in sent), f"no confirmation reached the principal: {sent}"

    by_package = Counter(package for package, _ in walk.files)
    print(f"functions run: {len(walk.functions)}")
    lines = sum(len((ROOT / path).read_text().splitlines()) for _, path in walk.files)
    print(f"lines in those files: {lines}")
    print(f"files opened: {len(walk.files)}  (" + ", ".join(f"{k} {v}" for k, v in sorted(by_package.items())) + ")")
    for src, dst in (("cognitive_core", "concern"), ("concern", "cognitive_core"), ("cognitive_core", "action")):
        pairs = {k: n for k, n in walk.edges.items() if k[0].startswith(src + "/") and k[2].startswith(dst + "/")}
        print(f"crossings {src} → {dst}: {len(pairs)} caller→callee pairs, {sum(pairs.values())} calls")
    for (src, fn, dst, callee), n in sorted(walk.edges.items()):
        if dst.startswith("action/") and src.startswith("concern/"):
            continue
        print(f"  {src}:{fn} → {dst}:{callee}  ×{n}")
    if args.files:
        for _, path in sorted(walk.files):
            print(f"  {path}")
    for person_id, preview in sent:
        print(f"sent to {person_id}: {preview}")


if __name__ == "__main__":
    main()
