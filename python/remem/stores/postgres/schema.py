"""PostgreSQL schema of the records and graph components (versioned, see migrations.py).

Ids use ``COLLATE "C"`` so that ordering by id is by code point, as in DuckDB, whatever the
database's default collation. Metadata, attributes and provenance are jsonb.
"""

from __future__ import annotations

from remem.stores.postgres.migrations import Migration

GRAPH_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "entities, aliases and relationships",
        """
        CREATE TABLE graph_entities (
            id            text COLLATE "C" PRIMARY KEY,
            name          text        NOT NULL,
            name_norm     text        NOT NULL,
            entity_type   text        NOT NULL,
            aliases       text[]      NOT NULL,
            attributes    jsonb       NOT NULL,
            namespace     text        NOT NULL,
            access_count  bigint      NOT NULL,
            provenance    jsonb       NOT NULL,
            created_at    timestamptz NOT NULL,
            updated_at    timestamptz NOT NULL
        );
        CREATE INDEX graph_entities_name_norm ON graph_entities (name_norm);
        CREATE TABLE graph_entity_aliases (
            entity_id  text COLLATE "C" NOT NULL REFERENCES graph_entities (id) ON DELETE CASCADE,
            alias_norm text NOT NULL,
            PRIMARY KEY (entity_id, alias_norm)
        );
        CREATE INDEX graph_entity_aliases_norm ON graph_entity_aliases (alias_norm);
        CREATE TABLE graph_relationships (
            id            text COLLATE "C" PRIMARY KEY,
            source_id     text COLLATE "C" NOT NULL,
            target_id     text COLLATE "C" NOT NULL,
            relation_type text        NOT NULL,
            attributes    jsonb       NOT NULL,
            namespace     text        NOT NULL,
            valid_from    timestamptz,
            valid_to      timestamptz,
            superseded_by text COLLATE "C",
            access_count  bigint      NOT NULL,
            provenance    jsonb       NOT NULL,
            created_at    timestamptz NOT NULL
        );
        CREATE INDEX graph_relationships_source ON graph_relationships (source_id);
        CREATE INDEX graph_relationships_target ON graph_relationships (target_id);
        """,
    ),
)

RECORD_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "memory records",
        """
        CREATE TABLE memory_records (
            id                    text COLLATE "C" PRIMARY KEY,
            text                  text        NOT NULL,
            kind                  text        NOT NULL,
            namespace             text        NOT NULL,
            session_id            text,
            stage                 text        NOT NULL,
            base_score            float8      NOT NULL,
            score_reference_time  timestamptz NOT NULL,
            created_at            timestamptz NOT NULL,
            accessed_at           timestamptz,
            promoted_at           timestamptz,
            decayed_at            timestamptz,
            access_count          bigint      NOT NULL,
            promotion_state       text        NOT NULL,
            protected             boolean     NOT NULL,
            source_id             text,
            source_type           text        NOT NULL,
            author_id             text,
            confidence            float8      NOT NULL,
            provenance_created_at timestamptz,
            parent_ids            text[]      NOT NULL,
            metadata              jsonb       NOT NULL,
            entity_ids            text[]      NOT NULL,
            superseded_by         text COLLATE "C",
            valid_from            timestamptz,
            valid_to              timestamptz
        );
        CREATE INDEX memory_records_stage ON memory_records (stage);
        CREATE INDEX memory_records_created ON memory_records (created_at, id);
        """,
    ),
)
