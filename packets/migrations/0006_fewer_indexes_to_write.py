"""Indexes every push had to write and no query reads (PostgreSQL only).

Django gives each varchar foreign key and unique column a second, `varchar_pattern_ops` index
for LIKE 'prefix%' queries; nothing searches owners, teams or public slugs by prefix. The plain
index on team_id is the first column of `packet_team_newest`, which serves every lookup by team
(the lists, the search scope, and the foreign key's checks when a team is deleted). The model
still declares these columns indexed, so Django would recreate nothing here; if a later migration
changes one of them, its own DROP INDEX IF EXISTS / introspection finds them already gone.
The pattern index on the primary key stays: "paste a packet id" search reads it.
"""

from django.db import migrations

# name: what it indexed, to restore it on the way back
UNUSED = {
    "packets_packet_owner_id_c54b05ae_like": "owner_id varchar_pattern_ops",
    "packets_packet_team_id_2daaac47_like": "team_id varchar_pattern_ops",
    "packets_packet_public_slug_541f1e13_like": "public_slug varchar_pattern_ops",
    "packets_packet_team_id_2daaac47": "team_id",
}


def drop_unused(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name in UNUSED:
            schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(name)}")


def restore(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name, indexed in UNUSED.items():
            schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {schema_editor.quote_name(name)} ON packets_packet ({indexed})")


class Migration(migrations.Migration):
    dependencies = [("packets", "0005_search")]

    operations = [migrations.RunPython(drop_unused, restore)]
