"""SQLite's search index is written in batches: a push only names its packet in
`packets_search_waiting`, and the waiting packets go into the FTS5 index together, when
SQLITE_BATCH of them wait or when a search is about to read the index (packets/search/selectors.py inserts
a row into the view `packets_search_catch_up`, whose trigger does it).

Why: FTS5 writes a new index segment at every commit; one packet a commit cost about three times
what the same packet costs in a batch (bench/README.md), and the push held SQLite's one write lock
that much longer. A search still sees every packet committed before it. PostgreSQL is unchanged.

A later migration that rebuilds the packets table on SQLite (adding or altering a column) loses
its triggers, and must make these again (as 0011 did for 0005's).
"""

import importlib

from django.db import migrations

SEARCH = importlib.import_module("packets.migrations.0005_search")

SQLITE_BATCH = 32

CATCH_UP = f"""
  INSERT INTO packets_search_doc (packet_id) SELECT w.packet_id FROM packets_search_waiting w
    WHERE NOT EXISTS (SELECT 1 FROM packets_search_doc d WHERE d.packet_id = w.packet_id);
  DELETE FROM packets_search WHERE rowid IN (
    SELECT d.id FROM packets_search_waiting w JOIN packets_search_doc d ON d.packet_id = w.packet_id);
  INSERT INTO packets_search (rowid, goal, tags, context, details)
    SELECT d.id, {SEARCH.sqlite_columns("p")} FROM packets_search_waiting w
    JOIN packets_packet p ON p.id = w.packet_id JOIN packets_search_doc d ON d.packet_id = w.packet_id;
  DELETE FROM packets_search_waiting;
"""

# Not INSERT OR IGNORE: inside a trigger, the conflict policy of the statement that fired it wins,
# and a push's upsert would turn a packet already waiting into a failed push.
WAIT = (
    "INSERT INTO packets_search_waiting (packet_id) SELECT new.id "
    "WHERE NOT EXISTS (SELECT 1 FROM packets_search_waiting WHERE packet_id = new.id);"
)

OLD_TRIGGERS = [statement for statement in SEARCH.SQLITE_FORWARD if "CREATE TRIGGER" in statement]
DROP_OLD_TRIGGERS = [statement for statement in SEARCH.SQLITE_BACKWARD if "DROP TRIGGER" in statement]

SQLITE_FORWARD = [
    *DROP_OLD_TRIGGERS,
    "CREATE TABLE packets_search_waiting (packet_id varchar(64) NOT NULL PRIMARY KEY) WITHOUT ROWID",
    "CREATE VIEW packets_search_catch_up AS SELECT NULL AS now",
    f"CREATE TRIGGER packets_search_catch_up INSTEAD OF INSERT ON packets_search_catch_up BEGIN {CATCH_UP} END",
    f"""
    CREATE TRIGGER packets_search_batch AFTER INSERT ON packets_search_waiting
    WHEN (SELECT count(*) FROM packets_search_waiting) >= {SQLITE_BATCH}
    BEGIN
      INSERT INTO packets_search_catch_up (now) VALUES (1);
    END
    """,
    f"""
    CREATE TRIGGER packets_search_insert AFTER INSERT ON packets_packet BEGIN
      {WAIT}
    END
    """,
    f"""
    CREATE TRIGGER packets_search_update AFTER UPDATE OF goal, tags, next_step, project, body ON packets_packet
    BEGIN
      {WAIT}
    END
    """,
    """
    CREATE TRIGGER packets_search_delete AFTER DELETE ON packets_packet BEGIN
      DELETE FROM packets_search WHERE rowid = (SELECT id FROM packets_search_doc WHERE packet_id = old.id);
      DELETE FROM packets_search_doc WHERE packet_id = old.id;
      DELETE FROM packets_search_waiting WHERE packet_id = old.id;
    END
    """,
]
SQLITE_BACKWARD = [
    "INSERT INTO packets_search_catch_up (now) VALUES (1)",  # nothing waiting is left out
    "DROP TRIGGER packets_search_insert",
    "DROP TRIGGER packets_search_update",
    "DROP TRIGGER packets_search_delete",
    "DROP TRIGGER packets_search_batch",
    "DROP TRIGGER packets_search_catch_up",
    "DROP VIEW packets_search_catch_up",
    "DROP TABLE packets_search_waiting",
    *OLD_TRIGGERS,
]


class Migration(migrations.Migration):
    dependencies = [("packets", "0011_secret_scan_findings")]

    operations = [
        migrations.RunPython(SEARCH._runner({"sqlite": SQLITE_FORWARD}), SEARCH._runner({"sqlite": SQLITE_BACKWARD})),
    ]
