"""Recall by meaning: a vector beside each packet, and the indexes that find those waiting for one
and those written since a process last looked (packets.search.vectors).

Nothing here blocks a busy hub: the two columns are nullable with no default (PostgreSQL adds them
without rewriting the table), the indexes are built CONCURRENTLY on PostgreSQL (so the migration
runs outside a transaction), and no vector is computed: `manage.py ltm_embed` fills those of the
packets pushed before, in the background."""

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models
from django.db.models import Q


class AddIndexWithoutBlocking(AddIndexConcurrently):
    """CREATE INDEX CONCURRENTLY on PostgreSQL; a plain CREATE INDEX elsewhere (SQLite)."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)
        else:
            migrations.AddIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
        else:
            migrations.AddIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("packets", "0014_quarantine_takes_public_pages_down")]

    operations = [
        migrations.AddField(
            model_name="packet",
            name="embedding",
            field=models.BinaryField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name="packet",
            name="embedded_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        AddIndexWithoutBlocking(
            model_name="packet",
            index=models.Index(condition=Q(embedding__isnull=True), fields=["pushed_at"], name="packet_vector_waiting"),
        ),
        AddIndexWithoutBlocking(
            model_name="packet",
            index=models.Index(
                condition=Q(embedded_at__isnull=False), fields=["embedded_at"], name="packet_vector_written"
            ),
        ),
    ]
