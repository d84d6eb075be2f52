"""Print how well plain words are understood: `.venv/bin/python -m tests.heldout [--misses]`.

The held-out set (tests/heldout/requests.yaml, never tuned on) and the tuning corpus, right per intent and per
language; `--misses` lists every wrong row with what was read instead.
"""

from __future__ import annotations

import sys

from tests.heldout import scoring, tuning


def main(argv: list[str]) -> None:
    """Score both sets and print the tables (and the misses when asked)."""
    held, tuned = scoring.score(), tuning.score()
    print(scoring.table(held, title="held-out"))
    if "--misses" in argv:
        print(scoring.misses(held))
    print(scoring.table(tuned, title="tuning corpus"))
    if "--misses" in argv:
        print(scoring.misses(tuned))
    wrongly = [v.row["id"] for v in held if scoring.contacted_wrongly(v)]
    print(f"held-out rows that contacted the wrong person: {len(wrongly)} {wrongly}")


if __name__ == "__main__":
    main(sys.argv[1:])
