"""The DuckDB schema of the memory file: records and graph in one database, versioned.

Times are BIGINT microseconds since the UNIX epoch (UTC): exact to the microsecond, columnar
(``fetchnumpy`` hands them to numpy without a datetime per value) and independent of the
connection's TimeZone setting. Applied migrations are recorded in ``remem_schema_migrations``
and never edited; a change is a new, higher version.
"""

from __future__ import annotations

from remem.stores.shared.graph_rows import ENTITY_COLUMNS, RELATIONSHIP_COLUMNS
from remem.stores.shared.record_rows import RECORD_COLUMNS

RECORD_TYPES: dict[str, str] = {
    "id": "VARCHAR",
    "text": "VARCHAR",
    "kind": "VARCHAR",
    "namespace": "VARCHAR",
    "session_id": "VARCHAR",
    "stage": "VARCHAR",
    "base_score": "DOUBLE",
    "score_reference_time": "BIGINT",
    "created_at": "BIGINT",
    "accessed_at": "BIGINT",
    "promoted_at": "BIGINT",
    "decayed_at": "BIGINT",
    "access_count": "BIGINT",
    "promotion_state": "VARCHAR",
    "protected": "BOOLEAN",
    "source_id": "VARCHAR",
    "source_type": "VARCHAR",
    "author_id": "VARCHAR",
    "confidence": "DOUBLE",
    "provenance_created_at": "BIGINT",
    "parent_ids": "VARCHAR[]",
    "metadata": "VARCHAR",
    "entity_ids": "VARCHAR[]",
    "superseded_by": "VARCHAR",
    "valid_from": "BIGINT",
    "valid_to": "BIGINT",
}
ENTITY_TYPES: dict[str, str] = {
    "id": "VARCHAR",
    "name": "VARCHAR",
    "name_norm": "VARCHAR",
    "entity_type": "VARCHAR",
    "aliases": "VARCHAR[]",
    "attributes": "VARCHAR",
    "namespace": "VARCHAR",
    "access_count": "BIGINT",
    "provenance": "VARCHAR",
    "created_at": "BIGINT",
    "updated_at": "BIGINT",
}
RELATIONSHIP_TYPES: dict[str, str] = {
    "id": "VARCHAR",
    "source_id": "VARCHAR",
    "target_id": "VARCHAR",
    "relation_type": "VARCHAR",
    "attributes": "VARCHAR",
    "namespace": "VARCHAR",
    "valid_from": "BIGINT",
    "valid_to": "BIGINT",
    "superseded_by": "VARCHAR",
    "access_count": "BIGINT",
    "provenance": "VARCHAR",
    "created_at": "BIGINT",
}
_NULLABLE = {
    "session_id",
    "accessed_at",
    "promoted_at",
    "decayed_at",
    "source_id",
    "author_id",
    "provenance_created_at",
    "superseded_by",
    "valid_from",
    "valid_to",
}
assert tuple(RECORD_TYPES) == RECORD_COLUMNS
assert tuple(ENTITY_TYPES) == ENTITY_COLUMNS
assert tuple(RELATIONSHIP_TYPES) == RELATIONSHIP_COLUMNS


def _table(name: str, types: dict[str, str]) -> str:
    cols = ",\n    ".join(
        f"{col} {typ}{'' if col in _NULLABLE else ' NOT NULL'}"
        + (" PRIMARY KEY" if col == "id" else "")
        for col, typ in types.items()
    )
    return f"CREATE TABLE {name} (\n    {cols}\n);"


MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "memory records and entity graph",
        "\n".join(
            [
                _table("memory_records", RECORD_TYPES),
                _table("graph_entities", ENTITY_TYPES),
                "CREATE INDEX graph_entities_name_norm ON graph_entities (name_norm);",
                "CREATE TABLE graph_entity_aliases (entity_id VARCHAR NOT NULL, "
                "alias_norm VARCHAR NOT NULL, PRIMARY KEY (entity_id, alias_norm));",
                "CREATE INDEX graph_entity_aliases_norm ON graph_entity_aliases (alias_norm);",
                _table("graph_relationships", RELATIONSHIP_TYPES),
                "CREATE INDEX graph_relationships_source ON graph_relationships (source_id);",
                "CREATE INDEX graph_relationships_target ON graph_relationships (target_id);",
            ]
        ),
    ),
)

BOOTSTRAP = """
CREATE TABLE IF NOT EXISTS remem_schema_migrations (
    component   VARCHAR NOT NULL,
    version     INTEGER NOT NULL,
    description VARCHAR NOT NULL,
    PRIMARY KEY (component, version)
)
"""
COMPONENT = "duckdb-memory"
