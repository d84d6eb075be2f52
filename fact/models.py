"""The Fact record (SPEC §3.2) and its person index."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import JSON, BigInteger, Column, ForeignKey, Index, Integer, String, Text, func, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import Field, SQLModel

from kernel.db import UTCDateTime


class FactType(StrEnum):
    message_received = "message_received"
    external_signal = "external_signal"
    button_pressed = "button_pressed"
    llm_proposal = "llm_proposal"  # the optional LLM's answer about a message the rules did not understand
    decision = "decision"
    concern_changed = "concern_changed"
    action_result = "action_result"
    person_changed = "person_changed"
    phrasing = "phrasing"  # how a principal says things, learned from corrections (cognitive_core.phrasings)
    system = "system"


class FactSource(StrEnum):
    perception = "perception"
    cognitive_core = "cognitive_core"
    concern = "concern"
    action_layer = "action_layer"
    person = "person"
    admin_api = "admin_api"
    system = "system"


CONTENT_JSON = JSON().with_variant(JSONB(), "postgresql")
_PK = BigInteger().with_variant(Integer(), "sqlite")


class Fact(SQLModel, table=True):
    """One immutable entry of the log; `pk` orders facts by recording."""

    __tablename__ = "facts"
    __table_args__ = (Index("ix_facts_type_pk", "fact_type", "pk"),)  # the newest fact of a type (person.cache)

    pk: int | None = Field(default=None, sa_column=Column(_PK, primary_key=True, autoincrement=True))
    fact_id: str = Field(sa_column=Column(String(32), nullable=False, unique=True))
    fact_type: str = Field(sa_column=Column(String(32), nullable=False, index=True))
    source: str = Field(sa_column=Column(String(32), nullable=False))
    person_refs: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    content: dict[str, Any] = Field(default_factory=dict, sa_column=Column(CONTENT_JSON, nullable=False))
    timestamp: datetime = Field(sa_column=Column(UTCDateTime, nullable=False, index=True))
    causation_id: str | None = Field(default=None, sa_column=Column(String(64), index=True))
    # Idempotency key of the signal that produced this fact (source + external id), if any.
    dedup_key: str | None = Field(default=None, sa_column=Column(String(300), unique=True))


class FactPersonRef(SQLModel, table=True):
    """Index row: fact `fact_pk` is about `person_id` (queried newest first per person)."""

    __tablename__ = "fact_person_refs"
    __table_args__ = (Index("ix_fact_person_refs_person", "person_id", "fact_pk"),)

    fact_pk: int = Field(sa_column=Column(_PK, ForeignKey("facts.pk"), primary_key=True))
    person_id: str = Field(sa_column=Column(String(64), primary_key=True))


class FactSearch(SQLModel, table=True):
    """Index row: the searchable text of fact `fact_pk` (fact.rules.searchable_text); none when it has no text.

    A side table, so indexing the log never updates a fact. SQLite indexes `body` with FTS5 tables beside it,
    PostgreSQL with a GIN index over its grams (migration 0007; see fact.search).
    """

    __tablename__ = "fact_search"
    __table_args__ = (
        Index("ix_fact_search_grams", func.deputy_fact_grams(text("body")), postgresql_using="gin").ddl_if(
            dialect="postgresql"
        ),
    )

    fact_pk: int = Field(sa_column=Column(_PK, ForeignKey("facts.pk"), primary_key=True, autoincrement=False))
    body: str = Field(sa_column=Column(Text, nullable=False))


class FactOut(BaseModel):
    """A fact as the API returns it; `timestamp` carries the deployment's offset."""

    model_config = ConfigDict(from_attributes=True)

    fact_id: str
    fact_type: str
    source: str
    person_refs: list[str]
    content: dict[str, Any]
    timestamp: datetime
    causation_id: str | None = None
