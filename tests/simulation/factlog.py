"""The fact log as an operator with database access might attack it: every recorded fact must stay as it was."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from sqlalchemy import create_engine, select, text
from sqlalchemy.exc import DBAPIError

from fact.models import Fact

if TYPE_CHECKING:
    from tests.simulation.runner import Simulation

# Replace the oldest fact: REPLACE's implicit delete skips DELETE triggers on SQLite; the replica role
# skips ordinary triggers on PostgreSQL.
REWRITE = {
    "sqlite": [
        "INSERT OR REPLACE INTO facts (pk, fact_id, fact_type, source, person_refs, content, timestamp,"
        " causation_id, dedup_key) SELECT pk, fact_id, fact_type, source, person_refs, '{\"rewritten\": true}',"
        " timestamp, causation_id, dedup_key FROM facts ORDER BY pk LIMIT 1"
    ],
    "postgresql": [
        "SET session_replication_role = replica",
        "UPDATE facts SET content = '{\"rewritten\": true}'::jsonb WHERE pk = (SELECT min(pk) FROM facts)",
    ],
}


def digest(fact: Fact) -> str:
    """A fingerprint of everything a fact says."""
    body = json.dumps(
        [fact.fact_id, fact.fact_type, fact.content, fact.person_refs, fact.timestamp.isoformat()],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(body.encode()).hexdigest()


class FactLogGuard:
    """Remembers every fact seen and says which ones changed since."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self._seen: dict[int, str] = {}

    def remember(self, fact: Fact) -> None:
        """Keep a fact's fingerprint."""
        self._seen[fact.pk] = digest(fact)

    def unchanged(self) -> list[str]:
        """Violations: facts whose content differs from when they were first seen."""
        with self.sim.replicas["r1"].ctx.reader() as uow:
            facts = uow.session.scalars(select(Fact).where(Fact.pk.in_(list(self._seen)))) if self._seen else []
            return [f"fact {f.fact_id} was rewritten" for f in facts if self._seen[f.pk] != digest(f)]

    def attempt_rewrite(self) -> list[str]:
        """An operator tries to rewrite the oldest fact; the log must refuse. Returns the violations."""
        url = self.sim.database_url
        engine = create_engine(url)
        try:
            with engine.begin() as conn:
                for statement in REWRITE[engine.dialect.name]:
                    conn.execute(text(statement))
            self.sim.log("  rewrite attempt went through")
        except DBAPIError as exc:
            self.sim.log(f"  rewrite refused: {str(exc.orig).splitlines()[0][:80]}")
        finally:
            engine.dispose()
        return self.unchanged()
