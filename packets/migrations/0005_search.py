"""Full-text search over packets, kept current by the database itself, so a push stays one
statement and no code path can forget the index.

PostgreSQL: a stored generated column `search_vector` (weighted: goal and tags A; next step,
project and decisions' what B; the rest of the text a person writes C) with a GIN index. "Paste
a packet id" lookups use the pattern index Django keeps on the primary key (`..._id_..._like`).

SQLite: an FTS5 table `packets_search` (Porter stemming) with one row per packet, kept by
triggers on insert, update and delete. Its rowids come from `packets_search_doc`, because a
packet's own rowid may change on VACUUM (its primary key is text).

Neither the column nor the tables are on the model: only packets/search/ reads them.
"""

from django.db import migrations

# The text of a packet's body that is searched besides the columns goal, tags, next_step and
# project, as (JSON array path, keys of its objects or None for an array of strings).
CONTEXT_TEXTS = [("$.decisions", ("what",))]
DETAIL_TEXTS = [
    ("$.success_criteria", None),
    ("$.constraints", None),
    ("$.decisions", ("why", "consequences")),
    ("$.attempts", ("tried", "learned")),
    ("$.methods", ("name", "when_applicable", "how")),
    ("$.open_questions", None),
]


def _pg_texts(texts) -> str:
    """A jsonb array of the strings at `texts`, from the body `b`."""
    parts = []
    for path, keys in texts:
        for key in keys or [None]:
            parts.append(f"jsonb_path_query_array(b, '{path}[*]{'.' + key if key else ''}')")
    return " || ".join(parts)


PG_FORWARD = [
    f"""
    CREATE FUNCTION packets_search_vector(goal text, tags text, next_step text, project text, body text)
    RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT setweight(to_tsvector('english'::regconfig, goal || ' ' || tags), 'A')
          || setweight(to_tsvector('english'::regconfig, next_step || ' ' || project), 'B')
          || setweight(jsonb_to_tsvector('english'::regconfig, {_pg_texts(CONTEXT_TEXTS)}, '["string"]'), 'B')
          || setweight(jsonb_to_tsvector('english'::regconfig, {_pg_texts(DETAIL_TEXTS)}, '["string"]'), 'C')
      FROM (SELECT body::jsonb AS b) AS packet
    $$
    """,
    "ALTER TABLE packets_packet ADD COLUMN search_vector tsvector GENERATED ALWAYS AS "
    "(packets_search_vector(goal, tags, next_step, project, body)) STORED",
    "CREATE INDEX packet_search ON packets_packet USING gin (search_vector)",
]
PG_BACKWARD = [
    "ALTER TABLE packets_packet DROP COLUMN search_vector",
    "DROP FUNCTION packets_search_vector(text, text, text, text, text)",
]


def _sqlite_texts(texts, row: str) -> str:
    """The strings at `texts` in `row`.body, joined by spaces."""
    parts = []
    for path, keys in texts:
        if keys is None:
            select = f"SELECT group_concat(value, ' ') FROM json_each({row}.body, '{path}')"
        else:
            names = ", ".join(f"'{key}'" for key in keys)
            select = (
                f"SELECT group_concat(value, ' ') FROM json_tree({row}.body, '{path}') "
                f"WHERE type = 'text' AND key IN ({names})"
            )
        parts.append(f"coalesce(({select}), '')")
    return " || ' ' || ".join(parts)


def sqlite_columns(row: str) -> str:
    """goal, tags, context, details of the FTS row, from the packets row `row` (new or old)."""
    return (
        f"{row}.goal, {row}.tags, {row}.next_step || ' ' || {row}.project || ' ' || "
        f"{_sqlite_texts(CONTEXT_TEXTS, row)}, {_sqlite_texts(DETAIL_TEXTS, row)}"
    )


SQLITE_FORWARD = [
    "CREATE TABLE packets_search_doc (id INTEGER PRIMARY KEY, packet_id varchar(64) NOT NULL UNIQUE)",
    "CREATE VIRTUAL TABLE packets_search USING fts5("
    "goal, tags, context, details, tokenize = 'porter unicode61 remove_diacritics 2')",
    f"""
    CREATE TRIGGER packets_search_insert AFTER INSERT ON packets_packet BEGIN
      INSERT INTO packets_search_doc (packet_id) VALUES (new.id);
      INSERT INTO packets_search (rowid, goal, tags, context, details)
        VALUES (last_insert_rowid(), {sqlite_columns('new')});
    END
    """,
    f"""
    CREATE TRIGGER packets_search_update AFTER UPDATE OF goal, tags, next_step, project, body ON packets_packet
    BEGIN
      UPDATE packets_search SET (goal, tags, context, details) = ({sqlite_columns('new')})
        WHERE rowid = (SELECT id FROM packets_search_doc WHERE packet_id = new.id);
    END
    """,
    """
    CREATE TRIGGER packets_search_delete AFTER DELETE ON packets_packet BEGIN
      DELETE FROM packets_search WHERE rowid = (SELECT id FROM packets_search_doc WHERE packet_id = old.id);
      DELETE FROM packets_search_doc WHERE packet_id = old.id;
    END
    """,
    # Packets stored before this migration.
    "INSERT INTO packets_search_doc (packet_id) SELECT id FROM packets_packet",
    f"""
    INSERT INTO packets_search (rowid, goal, tags, context, details)
      SELECT d.id, {sqlite_columns('p')} FROM packets_packet p JOIN packets_search_doc d ON d.packet_id = p.id
    """,
]
SQLITE_BACKWARD = [
    "DROP TRIGGER packets_search_insert",
    "DROP TRIGGER packets_search_update",
    "DROP TRIGGER packets_search_delete",
    "DROP TABLE packets_search",
    "DROP TABLE packets_search_doc",
]


def _runner(statements_by_vendor):
    def run(apps, schema_editor):
        for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("packets", "0004_team_push_events")]

    operations = [
        migrations.RunPython(
            _runner({"postgresql": PG_FORWARD, "sqlite": SQLITE_FORWARD}),
            _runner({"postgresql": PG_BACKWARD, "sqlite": SQLITE_BACKWARD}),
        ),
    ]
