"""The hand-written SQL `bench/search.py` compares the API with, and the plans of the API's own statements.

The direct SQL fetches the same page off the same indexes (full fact rows, SQLAlchemy Core, no ORM or HTTP):
the ratio is what the service adds on top of the database's own work.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Connection, bindparam, event, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.sql.elements import TextClause

from fact import rules
from fact.search import RECENT
from kernel.db import UTCDateTime
from kernel.pagination import key_position, like_pattern

PAGE = 51  # a page of 50 and the row that says there is another


def direct_page(conn: Connection, params: dict[str, Any]) -> int:
    """Fetch the full fact rows of the page `params` asks `GET /v1/facts` for; returns how many (at most 50)."""
    dialect = conn.dialect.name
    if dialect == "postgresql" and params.get("q") and not params.get("person_id"):
        return _postgres_search_page(conn, params)
    statement, binds = direct_sql(dialect, params)
    return min(len(conn.execute(statement, binds).all()), PAGE - 1)


def _postgres_search_page(conn: Connection, params: dict[str, Any]) -> int:
    """The two reads of fact.search.page_postgres: the newest texts by LIKE, then the gram index below them."""
    term = rules.normalise(params["q"])
    binds: dict[str, Any] = {"like": like_pattern(term), "keys": rules.gram_keys(term, 2 if len(term) == 2 else 3)}
    below = "WHERE fact_pk < :cursor" if params.get("cursor") else ""
    if below:
        binds["cursor"] = key_position(params["cursor"])
    checks = "AND f.fact_type = :fact_type" if params.get("fact_type") else ""
    if checks:
        binds["fact_type"] = params["fact_type"]
    recent = f"SELECT fact_pk, body FROM fact_search {below} ORDER BY fact_pk DESC LIMIT {RECENT}"
    near = text(
        f"SELECT f.* FROM ({recent}) r JOIN facts f ON f.pk = r.fact_pk WHERE r.body LIKE :like ESCAPE '\\' {checks} "
        f"ORDER BY r.fact_pk DESC LIMIT {PAGE}"
    )
    rows = len(conn.execute(near, {k: v for k, v in binds.items() if k != "keys"}).all())
    if rows < PAGE:
        far = text(
            f"SELECT f.* FROM fact_search s JOIN facts f ON f.pk = s.fact_pk WHERE s.body LIKE :like ESCAPE '\\' "
            f"AND deputy_fact_grams(s.body) @> CAST(:keys AS bigint[]) {checks} "
            f"AND s.fact_pk < (SELECT min(fact_pk) FROM ({recent}) x) ORDER BY s.fact_pk DESC LIMIT {PAGE - rows}"
        ).bindparams(bindparam("keys", type_=ARRAY(BigInteger)))
        rows += len(conn.execute(far, binds).all())
    return min(rows, PAGE - 1)


def direct_sql(dialect: str, params: dict[str, Any]) -> tuple[TextClause, dict[str, Any]]:
    """A statement returning the full fact rows of the page `params` asks for (PostgreSQL `q`: one index only)."""
    checks, binds = [], {}
    if fact_type := params.get("fact_type"):
        checks.append("f.fact_type = :fact_type")
        binds["fact_type"] = fact_type
    if since := params.get("since"):
        checks.append("f.timestamp >= :since")
        binds["since"] = datetime.fromisoformat(since)
    if person := params.get("person_id"):
        binds["person"] = person
        if q := params.get("q"):
            checks.append(
                "EXISTS (SELECT 1 FROM fact_search s WHERE s.fact_pk = f.pk AND s.body LIKE :like ESCAPE '\\')"
            )
            binds["like"] = like_pattern(rules.normalise(q))
        key, where = "r.fact_pk", ["r.person_id = :person"]
        if dialect == "postgresql":  # the walk the service runs: one index entry at a time, the checks per fact
            inner = " AND ".join(["pk = r.fact_pk", *(c.replace("f.", "") for c in checks)])
            source = f"fact_person_refs r CROSS JOIN LATERAL (SELECT * FROM facts WHERE {inner} OFFSET 0) f"
        else:
            source, where = "fact_person_refs r JOIN facts f ON f.pk = r.fact_pk", where + checks
    elif q := params.get("q"):
        source, key, where = _search(dialect, rules.normalise(q), binds)
        where += checks
    else:
        source, key, where = "facts f", "f.pk", checks
    if cursor := params.get("cursor"):
        where.append(f"{key} < :cursor")
        binds["cursor"] = key_position(cursor)
    sql = f"SELECT f.* FROM {source} WHERE {' AND '.join(where) or 'true'} ORDER BY {key} DESC LIMIT {PAGE}"
    statement = text(sql)
    if "since" in binds:
        statement = statement.bindparams(bindparam("since", type_=UTCDateTime))
    if "keys" in binds:
        statement = statement.bindparams(bindparam("keys", type_=ARRAY(BigInteger)))
    return statement, binds


def _search(dialect: str, term: str, binds: dict[str, Any]) -> tuple[str, str, list[str]]:
    if dialect == "postgresql":
        binds["keys"] = rules.gram_keys(term, 2 if len(term) == 2 else 3)
        binds["like"] = like_pattern(term)
        where = ["deputy_fact_grams(s.body) @> CAST(:keys AS bigint[])", "s.body LIKE :like ESCAPE '\\'"]
        return "fact_search s JOIN facts f ON f.pk = s.fact_pk", "s.fact_pk", where
    if len(term) == 2:
        binds["match"] = f'"{rules.gram_key(term)}"'
        return "fact_search_bigrams b JOIN facts f ON f.pk = b.rowid", "b.rowid", ["fact_search_bigrams MATCH :match"]
    binds["match"] = '"' + term.replace('"', '""') + '"'
    return "fact_search_fts s JOIN facts f ON f.pk = s.rowid", "s.rowid", ["fact_search_fts MATCH :match"]


def content_scan(dialect: str, term: str) -> tuple[TextClause, dict[str, Any]]:
    """What `q` ran before migration 0007: the whole content as text, case-insensitive, newest first."""
    cast = "CAST(content AS TEXT)" if dialect == "sqlite" else "content::text"
    operator = "LIKE" if dialect == "sqlite" else "ILIKE"
    sql = f"SELECT * FROM facts WHERE {cast} {operator} :pattern ESCAPE '\\' ORDER BY pk DESC LIMIT {PAGE}"
    return text(sql), {"pattern": like_pattern(term)}


def explain(url: str, params: dict[str, Any]) -> str:
    """The plan of the statement `fact.service.list_` runs for these parameters (EXPLAIN ANALYZE on PostgreSQL)."""
    from app.settings import Settings
    from app.wiring import build_context
    from fact import service

    ctx = build_context(Settings(_env_file=None, database_url=url, scheduler_enabled=False))
    seen: list[tuple[str, Any]] = []

    def grab(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        seen.append((statement, parameters))

    filters = service.FactFilter(
        fact_type=params.get("fact_type"),
        person_id=params.get("person_id"),
        since=datetime.fromisoformat(params["since"]) if "since" in params else None,
        q=params.get("q"),
    )
    event.listen(ctx.db.read_engine, "before_cursor_execute", grab)
    try:
        with ctx.reader() as uow:
            service.list_(uow, filters=filters, cursor=params.get("cursor"))
        statement, parameters = next((s, p) for s, p in reversed(seen) if "facts" in s)
        postgres = ctx.db.read_engine.dialect.name == "postgresql"
        prefix = "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " if postgres else "EXPLAIN QUERY PLAN "
        raw = ctx.db.read_engine.raw_connection()
        try:
            cursor = raw.cursor()
            cursor.execute(prefix + statement, parameters)
            return "\n".join(str(row[-1]) for row in cursor.fetchall())
        finally:
            raw.close()
    finally:
        event.remove(ctx.db.read_engine, "before_cursor_execute", grab)
        ctx.close()
