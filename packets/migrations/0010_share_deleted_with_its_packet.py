"""On PostgreSQL the database itself deletes a packet's shares with it (ON DELETE CASCADE).

A packet's delete is one plain statement (packets.services.packet_delete), and a share made at the
same moment must neither block it nor fail it at commit. SQLite keeps Django's constraint;
packet_delete deletes the shares first there. (A migration of its own: Django adds the foreign
key at the end of the migration that creates the table.)"""

from django.db import migrations


def _packet_foreign_key(schema_editor) -> str:
    with schema_editor.connection.cursor() as cursor:
        constraints = schema_editor.connection.introspection.get_constraints(cursor, "packets_share")
    return next(
        name
        for name, constraint in constraints.items()
        if constraint["foreign_key"] == ("packets_packet", "id") and constraint["columns"] == ["packet_id"]
    )


def _packet_delete_cascades(on_delete: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        name = _packet_foreign_key(schema_editor)
        schema_editor.execute(
            f"ALTER TABLE packets_share DROP CONSTRAINT {name}, ADD CONSTRAINT {name} FOREIGN KEY (packet_id) "
            f"REFERENCES packets_packet (id) ON DELETE {on_delete} DEFERRABLE INITIALLY DEFERRED"
        )

    return run


class Migration(migrations.Migration):
    dependencies = [("packets", "0009_share")]

    operations = [
        migrations.RunPython(_packet_delete_cascades("CASCADE"), _packet_delete_cascades("NO ACTION")),
    ]
