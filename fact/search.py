"""The fact search index: written with each fact in its transaction, read by `GET /v1/facts?q=`.

Every fact with human text (fact.rules) has a `fact_search` row: its case-folded text, keyed by the fact's pk.
- SQLite: `fact_search_fts` (FTS5, trigram tokenizer, external content on `fact_search`) finds a term of three
  or more characters as a phrase; `fact_search_bigrams` (FTS5, contentless, one token per distinct bigram key of
  the text) finds a two-character term, which a trigram index cannot.
- PostgreSQL: one GIN index over `deputy_fact_grams(body)`, the keys of every bigram and trigram (migration 0007,
  the same keys as `fact.rules.gram_key`); a two-character term is one key, a longer one its trigram keys with
  a LIKE on the text to check that they are adjacent. No extension and no locale: pg_trgm drops CJK under a
  C locale and cannot use its index for a pattern under three characters. GIN answers unordered, so a page
  first reads the newest texts by LIKE (`page_postgres`).
A one-character term has no index: it is a LIKE over `fact_search`, newest first, stopping at the page's end.
With `person_id`, the person's index drives and each of their facts' text is checked by LIKE (`contains`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    cast,
    column,
    exists,
    func,
    insert,
    literal,
    literal_column,
    select,
    table,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session
from sqlalchemy.sql import Select

from fact import rules
from fact.models import Fact, FactSearch
from kernel.pagination import key_cursor, key_position, like_pattern

FTS = table("fact_search_fts", column("rowid"))
BIGRAMS = table("fact_search_bigrams", column("rowid"))
RECENT = 2000  # newest texts a PostgreSQL search reads by LIKE before it asks the gram index (page_postgres)
_INSERT_TEXT = insert(FactSearch.__table__)
_INSERT_FTS = text("INSERT INTO fact_search_fts (rowid, body) VALUES (:fact_pk, :body)")
_INSERT_BIGRAMS = text("INSERT INTO fact_search_bigrams (rowid, grams) VALUES (:fact_pk, :grams)")


def body_of(fact_type: str, content: dict[str, Any]) -> str | None:
    """What a fact's search row holds, or None when it has no text (and no row)."""
    return rules.searchable_text(fact_type, content) or None


def index(conn: Connection, facts: Iterable[tuple[int, str, dict[str, Any]]]) -> int:
    """Index facts given as (pk, fact_type, content) in the caller's transaction; returns how many had text."""
    rows = [{"fact_pk": pk, "body": body} for pk, fact_type, content in facts if (body := body_of(fact_type, content))]
    if not rows:
        return 0
    conn.execute(_INSERT_TEXT, rows)
    if conn.dialect.name == "sqlite":
        conn.execute(_INSERT_FTS, rows)
        bigrams = [{"fact_pk": r["fact_pk"], "grams": _tokens(rules.gram_keys(r["body"], 2))} for r in rows]
        conn.execute(_INSERT_BIGRAMS, bigrams)
    return len(rows)


def narrow(stmt: Select, q: str, *, postgres: bool) -> tuple[Select, Any]:
    """`stmt` (a select of facts) kept to facts whose text contains `q`; and the key that pages it newest first.

    The key is the search index's own row id where there is one, so the database walks the index in order and
    stops at the page's end instead of collecting every match.
    """
    term = rules.normalise(q)
    if len(term) < 2:
        return stmt.join(FactSearch, FactSearch.fact_pk == Fact.pk).where(_like(term)), Fact.pk
    if postgres:
        keys = cast(literal(rules.gram_keys(term, 2 if len(term) == 2 else 3), ARRAY(BigInteger)), ARRAY(BigInteger))
        grams = func.deputy_fact_grams(FactSearch.body).op("@>")(keys)
        # The grams find candidates through the index; the LIKE says whether they hold the term (trigrams could
        # be apart), and is what the planner evaluates first when it walks newest first instead.
        return stmt.join(FactSearch, FactSearch.fact_pk == Fact.pk).where(_like(term), grams), FactSearch.fact_pk
    if len(term) == 2:
        match = literal_column("fact_search_bigrams").op("MATCH")(f'"{rules.gram_key(term)}"')
        return stmt.join(BIGRAMS, BIGRAMS.c.rowid == Fact.pk).where(match), BIGRAMS.c.rowid
    phrase = '"' + term.replace('"', '""') + '"'  # an FTS5 string: the trigram tokenizer matches it as a substring
    match = literal_column("fact_search_fts").op("MATCH")(phrase)
    return stmt.join(FTS, FTS.c.rowid == Fact.pk).where(match), FTS.c.rowid


def page_postgres(
    session: Session, stmt: Select, q: str, *, limit: int, cursor: str | None
) -> tuple[list[Fact], str | None]:
    """A page of `stmt`'s facts containing `q`, newest first, on PostgreSQL.

    A GIN index returns its matches unordered: for a common term the database would fetch and sort every match
    to return fifty. So the newest `RECENT` texts below the cursor are read by LIKE first, which fills a page of
    a common term; only when they do not is the gram index asked, below them, for the rest: a rare term's few
    matches, which it finds at once.
    """
    term, position = rules.normalise(q), key_position(cursor)
    recent = select(FactSearch.fact_pk, FactSearch.body).order_by(FactSearch.fact_pk.desc()).limit(RECENT)
    recent = (recent.where(FactSearch.fact_pk < position) if position is not None else recent).subquery("recent")
    near = stmt.join(recent, recent.c.fact_pk == Fact.pk).where(_like(term, recent.c.body))
    rows = list(session.scalars(near.order_by(recent.c.fact_pk.desc()).limit(limit + 1)))
    if len(rows) <= limit:
        far, key = narrow(stmt.where(Fact.pk < select(func.min(recent.c.fact_pk)).scalar_subquery()), q, postgres=True)
        rows += session.scalars(far.order_by(key.desc()).limit(limit + 1 - len(rows)))
    page = rows[:limit]
    return page, key_cursor(page[-1].pk) if len(rows) > limit else None


def contains(q: str) -> ColumnElement[bool]:
    """A check of one fact's text, for a walk another index drives (the person's): no search index is used."""
    return exists().where(FactSearch.fact_pk == Fact.pk, _like(rules.normalise(q)))


def _like(term: str, body: Any = FactSearch.body) -> ColumnElement[bool]:
    return body.like(like_pattern(term), escape="\\")


def _tokens(keys: list[int]) -> str:
    return " ".join(str(key) for key in keys)
