"""SQLite's search index is no longer written by the push that fills a batch: a push only names its
packet in `packets_search_waiting`, and a thread of the web process (packets/search/queue.py)
indexes what waits a moment later, a batch at a time, by inserting the batch's size into the view
`packets_search_index_batch`, whose trigger indexes that many of the waiting packets (the oldest
ids first). A search still indexes everything that waits first (`packets_search_catch_up`, 0012).

Why: the push that made SQLITE_BATCH packets wait indexed all of them while its client waited,
several times as long as any other push. PostgreSQL is unchanged.
"""

import importlib

from django.db import migrations

SEARCH = importlib.import_module("packets.migrations.0005_search")
BATCHES = importlib.import_module("packets.migrations.0012_sqlite_search_index_in_batches")

# The waiting packets this batch indexes: `new.size` of them, by id. The four statements see the
# same ones: nothing else writes between them (they are one statement's trigger).
CHOSEN = "(SELECT packet_id FROM packets_search_waiting ORDER BY packet_id LIMIT new.size)"

INDEX_BATCH = f"""
  INSERT INTO packets_search_doc (packet_id) SELECT c.packet_id FROM {CHOSEN} c
    WHERE NOT EXISTS (SELECT 1 FROM packets_search_doc d WHERE d.packet_id = c.packet_id);
  DELETE FROM packets_search WHERE rowid IN (
    SELECT d.id FROM {CHOSEN} c JOIN packets_search_doc d ON d.packet_id = c.packet_id);
  INSERT INTO packets_search (rowid, goal, tags, context, details)
    SELECT d.id, {SEARCH.sqlite_columns("p")} FROM {CHOSEN} c
    JOIN packets_packet p ON p.id = c.packet_id JOIN packets_search_doc d ON d.packet_id = c.packet_id;
  DELETE FROM packets_search_waiting WHERE packet_id IN {CHOSEN};
"""

[CREATE_BATCH_TRIGGER] = [statement for statement in BATCHES.SQLITE_FORWARD if "packets_search_batch" in statement]

SQLITE_FORWARD = [
    "DROP TRIGGER packets_search_batch",
    "CREATE VIEW packets_search_index_batch AS SELECT NULL AS size",
    "CREATE TRIGGER packets_search_index_batch INSTEAD OF INSERT ON packets_search_index_batch "
    f"BEGIN {INDEX_BATCH} END",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER packets_search_index_batch",
    "DROP VIEW packets_search_index_batch",
    CREATE_BATCH_TRIGGER,
]


class Migration(migrations.Migration):
    dependencies = [("packets", "0012_sqlite_search_index_in_batches")]

    operations = [
        migrations.RunPython(SEARCH._runner({"sqlite": SQLITE_FORWARD}), SEARCH._runner({"sqlite": SQLITE_BACKWARD})),
    ]
