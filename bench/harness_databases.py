"""How long the suite's PostgreSQL harness takes to hand a test an empty database (`PostgresDatabases.lend`).

Usage: DEPUTY_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test python bench/harness_databases.py
Each round writes a few rows (as a test does), then times `lend()` (rename + empty) against making and dropping a
copy of the template per test, as the harness did before.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

from sqlalchemy import create_engine, text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.conftest import PostgresDatabases

ROUNDS = 20
FILL = (
    "INSERT INTO facts (fact_id, fact_type, source, person_refs, content, timestamp, dedup_key) "
    "SELECT 'fact_' || g, 'external_signal', 'system', '[]', '{}', now(), 'k' || g FROM generate_series(1, 20) g"
)


def _fill(url: str) -> None:
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text(FILL))
    engine.dispose()


def main() -> None:
    """Print a table: milliseconds per test for each way of getting an empty database."""
    dbs = PostgresDatabases(os.environ["DEPUTY_TEST_POSTGRES_URL"])
    dbs.setup_template()
    try:
        url = dbs.lend()
        lend = []
        for _ in range(ROUNDS):
            _fill(url)
            started = time.perf_counter()
            url = dbs.lend()
            lend.append((time.perf_counter() - started) * 1000)
        copy = []
        for _ in range(ROUNDS):
            started = time.perf_counter()
            fresh = dbs.fresh()
            _fill(fresh)
            dbs.drop(fresh)
            copy.append((time.perf_counter() - started) * 1000)
    finally:
        dbs.close()
    print(f"{'way':<34} {'median ms':>10} {'max ms':>8}")
    for name, times in (("lend: rename + empty (now)", lend), ("copy per test + drop (before)", copy)):
        print(f"{name:<34} {statistics.median(times):>10.1f} {max(times):>8.1f}")


if __name__ == "__main__":
    main()
