"""`/console`: what Deputy did today and why something was not sent, open loops, held and stuck deliveries, charts."""

from __future__ import annotations

from datetime import timedelta
from statistics import median
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from action import service as actions
from action import stats as action_stats
from app.console import charts, describe
from app.console.i18n import Translator
from app.console.web import Shared, Viewing, translator
from cognitive_core.signals import routing as signals
from concern import stats as concern_stats
from kernel.channel_names import installed
from perception import service as perception
from person.rules import local_day_bounds

router = APIRouter(prefix="/console", include_in_schema=False)
DAYS = 14
UNHANDLED_DAYS = 7
RESULTS = ("success", "blocked", "failed", "pending")
TYPES = ("send_message", "escalate", "backflow", "notify")
# Time-to-answer buckets: (upper bound, label).
BUCKETS = [
    (timedelta(minutes=5), "<5m"),
    (timedelta(minutes=30), "5–30m"),
    (timedelta(hours=1), "30m–1h"),
    (timedelta(hours=4), "1–4h"),
    (timedelta(hours=24), "4–24h"),
    (timedelta(days=3), "1–3d"),
    (timedelta.max, ">3d"),
]


def histogram(waits: list[timedelta]) -> list[int]:
    """How many waits fall in each bucket of BUCKETS."""
    counts = [0] * len(BUCKETS)
    for wait in waits:
        counts[next(i for i, (upper, _) in enumerate(BUCKETS) if wait < upper)] += 1
    return counts


def _charts(summary: action_stats.Summary, waits: list[timedelta], days: list[str], t: Translator) -> dict[str, Any]:
    by_day = [summary.by_day.get(d, {}) for d in days]
    series = [charts.Series(r, t.result(r), [day.get(r, 0) for day in by_day]) for r in RESULTS]
    labels = [d[5:] for d in days]  # MM-DD
    blocked = sorted(summary.blocked_by.items(), key=lambda item: (-item[1], item[0]))
    return {
        "actions_chart": charts.stacked_bars(labels, series, label=t("actions_14d")),
        "blocked_chart": charts.hbars(
            [(t.code("code", code) or code, n, code.split(":")[0].lower()) for code, n in blocked],
            label=t("blocked_by_layer"),
        )
        if blocked
        else None,
        "answer_chart": charts.stacked_bars(
            [label for _, label in BUCKETS],
            [charts.Series("answer", t("count"), histogram(waits))],
            label=t("time_to_answer"),
            height=170,
        ),
        "series": series,
    }


def _channels(ctx: Any, summary: action_stats.Summary, bindings: dict[str, tuple[int, int]]) -> list[dict[str, Any]]:
    rows = []
    for name in dict.fromkeys([*installed(), *ctx.channels.names()]):
        channel = ctx.channels.get(name)
        health = channel.health() if channel is not None else None
        rows.append(
            {
                "name": name,
                "configured": health is not None,
                "ok": bool(health and health.ok),
                "detail": health.detail if health else "",
                "dry_run": name in ctx.settings.dry_run_channels,
                "use": summary.channels.get(name),
                "reachable": bindings.get(name, (0, 0))[0],
                "unreachable": bindings.get(name, (0, 0))[1],
            }
        )
    return rows


@router.get("", response_class=HTMLResponse)
def overview(request: Request, shared: Shared, _: Viewing) -> HTMLResponse:
    """The dashboard."""
    ctx, t = shared.ctx, translator(request)
    tz = ctx.settings.tz
    with ctx.reader() as uow:
        now = uow.now
        today, _ = local_day_bounds(now, tz)
        since = today - timedelta(days=DAYS - 1)
        summary = action_stats.summarise(action_stats.recent(uow, since=since), tz=tz, today_since=today)
        waits = concern_stats.answer_times(uow, since=since)
        grace = max(2 * ctx.settings.scheduler_interval, timedelta(minutes=5))
        not_sent = [
            *actions.list_(uow, result="blocked", since=today, limit=15)[0],
            *actions.list_(uow, result="failed", since=today, limit=15)[0],
        ]
        not_sent = sorted(not_sent, key=lambda row: row.pk, reverse=True)[:15]
        held = concern_stats.held(uow)
        overdue = concern_stats.overdue(uow, now=now, grace=grace)
        in_flight = action_stats.in_flight(uow)
        # Signals whose type has no route (DEPUTY_SIGNAL_ROUTES), this week, newest first.
        unhandled = signals.unhandled_signals(uow, since=today - timedelta(days=UNHANDLED_DAYS - 1))[::-1][:20]
        who = describe.names(
            uow,
            [s["person_id"] for s in unhandled if s["person_id"]]
            + [r.target_person_id for r in [*not_sent, *in_flight]]
            + [h.target_person_id for h in held]
            + [c.target_person_id for c in overdue],
        )
        page = {
            "open_counts": concern_stats.count_open(uow),
            "opened_today": concern_stats.opened(uow, since=today),
            "answered_today": len(concern_stats.answer_times(uow, since=today)),
            "not_sent": [(row, actions.to_record(row, tz=tz).model_dump(mode="json")) for row in not_sent],
            "held": held,
            "overdue": overdue,
            "grace": grace,
            "in_flight": in_flight,
            "backlog": concern_stats.backlog(uow, now=now),
            "inbox": perception.inbox_backlog(uow),
            "unhandled": unhandled,
            "channels": _channels(ctx, summary, action_stats.bindings_by_channel(uow)),
        }
    days = [(since + timedelta(days=i)).astimezone(tz).date().isoformat() for i in range(DAYS)]
    today_counts = {(kind, result): summary.by_type.get((kind, result), 0) for kind in TYPES for result in RESULTS}
    median_wait = median(waits) if waits else None
    return shared.page(
        request,
        "overview.html",
        title=t("overview"),
        who=who,
        types=TYPES,
        results=RESULTS,
        today_counts=today_counts,
        median_wait=median_wait,
        answers=len(waits),
        action_line=lambda record: describe.action_line(record, t, who=who, tz=tz, now=now),
        **page,
        **_charts(summary, waits, days, t),
    )
