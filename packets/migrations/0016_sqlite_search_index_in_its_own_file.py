"""SQLite's search index moves out of the hub's database into a file of its own
(packets/search/sqlite_index.py says why and how): the FTS5 table, its rowids and the views that
indexed a batch leave this file, and what stays is the list of changes the index has yet to take
in, one row per change, numbered, and the generation token the index is built for. The search
file is built from the packets at the first search or push after this migration.

A later migration that rebuilds the packets table on SQLite (adding or altering a column) loses
its triggers, and must make these again. PostgreSQL is unchanged.
"""

import importlib

from django.db import migrations

SEARCH = importlib.import_module("packets.migrations.0005_search")
BATCHES = importlib.import_module("packets.migrations.0012_sqlite_search_index_in_batches")
OFF_THE_PUSH = importlib.import_module("packets.migrations.0013_sqlite_search_index_off_the_push")

CHANGED = "INSERT INTO packets_search_waiting (packet_id) VALUES ({row}.id);"

SQLITE_FORWARD = [
    *OFF_THE_PUSH.SQLITE_BACKWARD[:2],  # the batch's trigger and view
    "DROP TRIGGER packets_search_insert",
    "DROP TRIGGER packets_search_update",
    "DROP TRIGGER packets_search_delete",
    "DROP TRIGGER packets_search_catch_up",
    "DROP VIEW packets_search_catch_up",
    "DROP TABLE packets_search_waiting",
    "DROP TABLE packets_search",
    "DROP TABLE packets_search_doc",
    # AUTOINCREMENT: no number is given twice, even once every row is deleted, so "the index has
    # every change up to seq" keeps its meaning.
    "CREATE TABLE packets_search_waiting (seq INTEGER PRIMARY KEY AUTOINCREMENT, packet_id varchar(64) NOT NULL)",
    "CREATE TABLE packets_search_generation (token TEXT NOT NULL)",
    "INSERT INTO packets_search_generation (token) VALUES (lower(hex(randomblob(16))))",
    f"CREATE TRIGGER packets_search_insert AFTER INSERT ON packets_packet BEGIN {CHANGED.format(row='new')} END",
    "CREATE TRIGGER packets_search_update AFTER UPDATE OF goal, tags, next_step, project, body ON packets_packet "
    f"BEGIN {CHANGED.format(row='new')} END",
    f"CREATE TRIGGER packets_search_delete AFTER DELETE ON packets_packet BEGIN {CHANGED.format(row='old')} END",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER packets_search_insert",
    "DROP TRIGGER packets_search_update",
    "DROP TRIGGER packets_search_delete",
    "DROP TABLE packets_search_generation",
    "DROP TABLE packets_search_waiting",
    # The index inside this file again, built from the packets, as 0013 left it.
    *SEARCH.SQLITE_FORWARD,
    *BATCHES.SQLITE_FORWARD,
    *OFF_THE_PUSH.SQLITE_FORWARD,
]


class Migration(migrations.Migration):
    dependencies = [("packets", "0015_packet_vectors")]

    operations = [
        migrations.RunPython(SEARCH._runner({"sqlite": SQLITE_FORWARD}), SEARCH._runner({"sqlite": SQLITE_BACKWARD})),
    ]
