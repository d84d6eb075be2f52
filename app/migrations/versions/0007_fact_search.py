"""Fact search: the human text of every fact in `fact_search`, indexed for `GET /v1/facts?q=`.

- `fact_search (fact_pk, body)`: a side table keyed by the fact's pk, so indexing never updates the
  append-only log. The application writes it in the transaction that appends the fact (fact.search.index).
- SQLite: `fact_search_fts`, FTS5 with the trigram tokenizer over `body` (external content), for terms of
  three characters or more; `fact_search_bigrams`, contentless FTS5 holding one token per distinct bigram key,
  for two-character terms such as 提测.
- PostgreSQL: `deputy_fact_grams(body)`, the keys of every bigram and trigram of the text (code points packed
  as in fact.rules.gram_key), and a GIN index over it; no extension is needed.
- Existing facts are indexed here, in pk batches, with progress on stdout for large logs.
- `fact_person_refs (person_id, fact_pk)` already has its index (0001); the person filter now walks it.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

import time

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

from fact import search

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
BATCH = 5000

# plpgsql with scalar state: about 0.5 µs a character, twice as fast as the set-based SQL versions tried.
# COST 10 (LIKE is 1): the planner checks a row's LIKE first and counts the grams as cheap, which they are then,
# since only rows holding the term reach them; a higher cost made it sort every match of a common term.
_PG_GRAMS = """
CREATE FUNCTION deputy_fact_grams(body text) RETURNS bigint[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 10 AS $$
DECLARE
    keys bigint[] := '{}';
    a bigint;
    b bigint;
    c bigint;
    ch text;
BEGIN
    FOREACH ch IN ARRAY string_to_array(body, NULL) LOOP
        a := b;
        b := c;
        c := ascii(ch);
        IF b IS NOT NULL THEN
            keys := keys || (b * 2097152 + c);
            IF a IS NOT NULL THEN
                keys := keys || ((a * 2097152 + b) * 2097152 + c);
            END IF;
        END IF;
    END LOOP;
    RETURN keys;
END
$$
"""
_SQLITE_TABLES = (
    "CREATE VIRTUAL TABLE fact_search_fts USING fts5("
    "body, content='fact_search', content_rowid='fact_pk', tokenize='trigram case_sensitive 1')",
    "CREATE VIRTUAL TABLE fact_search_bigrams USING fts5(grams, content='', detail=none, columnsize=0)",
)


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    op.create_table(
        "fact_search",
        sa.Column("fact_pk", PK, sa.ForeignKey("facts.pk"), primary_key=True, autoincrement=False),
        sa.Column("body", sa.Text, nullable=False),
    )
    if not postgres:
        for statement in _SQLITE_TABLES:
            op.execute(statement)
    _backfill(op.get_bind())
    if postgres:
        # Built once over the backfilled rows: much faster than growing it row by row.
        op.execute(_PG_GRAMS)
        op.execute("CREATE INDEX ix_fact_search_grams ON fact_search USING gin (deputy_fact_grams(body))")
        op.execute("ANALYZE fact_search")


def _backfill(conn: sa.Connection) -> None:
    facts = sa.table(
        "facts",
        sa.column("pk", sa.BigInteger),
        sa.column("fact_type", sa.String),
        sa.column("content", sa.JSON().with_variant(JSONB(), "postgresql")),
    )
    total = conn.execute(sa.select(sa.func.count()).select_from(facts)).scalar_one()
    done, last, started = 0, 0, time.monotonic()
    while True:
        query = sa.select(facts.c.pk, facts.c.fact_type, facts.c.content).where(facts.c.pk > last)
        rows = conn.execute(query.order_by(facts.c.pk).limit(BATCH)).all()
        if not rows:
            break
        search.index(conn, [tuple(row) for row in rows])
        done, last = done + len(rows), rows[-1].pk
        if total > BATCH:
            print(f"0007 fact search: indexed {done:,} / {total:,} facts ({time.monotonic() - started:.0f} s)", flush=True)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP INDEX ix_fact_search_grams")
        op.execute("DROP FUNCTION deputy_fact_grams(text)")
    else:
        op.execute("DROP TABLE fact_search_bigrams")
        op.execute("DROP TABLE fact_search_fts")
    op.drop_table("fact_search")
