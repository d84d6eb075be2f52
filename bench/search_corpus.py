"""The fact log `bench/search.py` searches: Chinese and English facts in the shapes the layers append.

500 persons over 30 days; every fact names one person (a fifth of them two). Ten quiet persons fall silent
three days before the end, so a `since=24h` on them finds nothing. Planted terms give known frequencies:
`提测` and `review` are common words of the vocabulary; `灰度`, `回滚方案` and `kubernetes` are planted in about
one fact in 20,000; `量子`, `量子纠缠` and `xylophone` appear nowhere.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

from kernel.db import Database, UTCDateTime


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


PERSONS = 500
QUIET = 10  # p_bench_490 … p_bench_499: nothing in the last three days
DAYS = 30
RARE_EVERY = 20_000
ZH = _words(
    "提测 上线 需求 评审 发布 回归 测试 代码 合并 部署 会议 周报 进度 预算 合同 接口 文档 设计 排期 验收 数据 "
    "报表 客户 反馈 版本 修复 优化 性能 监控 告警 日志 权限 账号 支付 订单 库存 物流 采购 审批 报销 招聘 面试 "
    "培训 季度 目标 复盘 风险 依赖 资源 服务 集群 缓存 数据库 迁移 脚本 明天 下午 今天 本周 下周 已经 还没 可以 "
    "需要 帮忙 确认 一下"
)
EN = _words(
    "the build is ready for review please check release notes deploy tomorrow afternoon meeting budget contract "
    "customer feedback version fix performance latency alert logs access payment order inventory shipping approval "
    "sprint goal risk dependency cache database migration script test merge branch staging production ticket owner "
    "update status blocked waiting done today next week api design spec quarter team sync"
)
RARE = ("灰度", "回滚方案", "kubernetes")
_FACTS = sa.table(
    "facts",
    *(sa.column(name) for name in ("pk", "fact_id", "fact_type", "source", "causation_id", "dedup_key")),
    sa.column("person_refs", sa.JSON),
    sa.column("content", sa.JSON().with_variant(JSONB(), "postgresql")),
    sa.column("timestamp", UTCDateTime),
)
_REFS = sa.table("fact_person_refs", sa.column("fact_pk"), sa.column("person_id"))
_COUNTERS = sa.table("id_counters", sa.column("prefix"), sa.column("day"), sa.column("last_seq"))
_TYPES = ("message_received",) * 8 + ("action_result",) * 5 + ("concern_changed",) * 3 + ("decision",) * 3
_TYPES += ("system",)


def sentence(rng: random.Random) -> str:
    """A short Chinese or English sentence; about one in 20,000 carries a rare planted term."""
    if rng.random() < 0.5:
        words = "".join(rng.choice(ZH) for _ in range(rng.randint(3, 7)))
    else:
        words = " ".join(rng.choice(EN) for _ in range(rng.randint(4, 9)))
        words = words.capitalize() if rng.random() < 0.3 else words
    if rng.randrange(RARE_EVERY) < len(RARE):
        words += " " + rng.choice(RARE)
    return words


def _content(kind: str, n: int, person: str, text: str, at: datetime) -> dict[str, Any]:
    if kind == "message_received":
        return {
            "channel": "feishu",
            "event_id": f"evt_{n}",
            "message_id": f"om_{n}",
            "chat_id": f"oc_{person}",
            "chat_type": "p2p",
            "external_user_id": f"ou_{person}",
            "text": text,
            "reply_to_message_id": None,
            "mentions": [],
            "mentions_bot": False,
            "occurred_at": at.isoformat(),
            "person_id": person,
        }
    if kind == "action_result":
        detail = {"message_id": f"om_out_{n}", "attempts": [{"channel": "feishu", "result": "success"}]}
        return {
            "action_id": f"act_{n}",
            "action_type": "send_message",
            "decision_ref": f"dec_{n}",
            "target_person_id": person,
            "channel": "feishu",
            "content_preview": text,
            "result": "success",
            "result_detail": detail,
            "timestamp": at.isoformat(),
        }
    if kind == "concern_changed":
        after = {"state": "waiting_reply", "follow_up_count": 0, "answer": None, "pending_deliveries": []}
        return {"concern_id": f"con_{n}", "change": "raised", "before": None, "after": after, "question": text}
    if kind == "decision":
        ask = {"target_person_id": person, "question": text, "priority": "P1", "kind": "raise_concern"}
        return {"decision_id": f"dec_{n}", "kind": "raise_concern", "rule": "ask", "requested": [ask]}
    return {"event": "outbox_entry_failed", "request_key": f"dec_{n}:notify", "error": "Transient", "message": text}


def _persons(rng: random.Random, at: datetime, end: datetime) -> list[str]:
    pool = PERSONS - QUIET if at > end - timedelta(days=3) else PERSONS
    first = rng.randrange(pool)
    refs = [first] if rng.random() < 0.8 else [first, rng.randrange(pool)]
    return [f"p_bench_{i}" for i in dict.fromkeys(refs)]


def facts(total: int, end: datetime, tz: ZoneInfo, seed: int = 10) -> Iterator[tuple[dict[str, Any], list[str]]]:
    """`total` fact rows, oldest first, evenly over the 30 days before `end`, with their person refs."""
    rng = random.Random(seed)
    span = timedelta(days=DAYS) / total
    start, seq, day = end - timedelta(days=DAYS), 0, ""
    for n in range(total):
        at = start + span * n
        local = at.astimezone(tz).strftime("%Y%m%d")
        seq = seq + 1 if local == day else 1
        day = local
        kind, refs = rng.choice(_TYPES), _persons(rng, at, end)
        yield (
            {
                "pk": n + 1,
                "fact_id": f"fact_{day}_{seq:03d}",
                "fact_type": kind,
                "source": "perception" if kind == "message_received" else "action_layer",
                "causation_id": None,
                "dedup_key": None,
                "person_refs": refs,
                "content": _content(kind, n, refs[0], sentence(rng), at),
                "timestamp": at,
            },
            refs,
        )


def fill(url: str, total: int, end: datetime, tz: ZoneInfo, batch: int = 10_000) -> None:
    """Insert the corpus as the append path would leave it: facts, person refs and the day's id counters."""
    database = Database(url)  # the service's engine: JSON is stored as the service stores it
    try:
        _fill(database.engine, total, end, tz, batch)
    finally:
        database.dispose()


def _fill(engine: sa.Engine, total: int, end: datetime, tz: ZoneInfo, batch: int) -> None:
    counters: dict[str, int] = {}
    rows: list[dict[str, Any]] = []
    refs: list[dict[str, Any]] = []
    for fact, persons in facts(total, end, tz):
        rows.append(fact)
        refs += [{"fact_pk": fact["pk"], "person_id": p} for p in persons]
        counters[fact["fact_id"][5:13]] = int(fact["fact_id"][14:])
        if len(rows) == batch:
            _flush(engine, rows, refs)
            rows, refs = [], []
    if rows:
        _flush(engine, rows, refs)
    with engine.begin() as conn:
        conn.execute(sa.insert(_COUNTERS), [{"prefix": "fact", "day": d, "last_seq": s} for d, s in counters.items()])
        if engine.dialect.name == "postgresql":  # explicit pks: the sequence must move past them for later appends
            conn.execute(sa.text("SELECT setval(pg_get_serial_sequence('facts', 'pk'), (SELECT max(pk) FROM facts))"))


def _flush(engine: sa.Engine, rows: list[dict[str, Any]], refs: list[dict[str, Any]]) -> None:
    with engine.begin() as conn:
        conn.execute(sa.insert(_FACTS), rows)
        conn.execute(sa.insert(_REFS), refs)
