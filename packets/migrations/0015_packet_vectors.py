"""Recall by meaning: a vector beside each packet, and the indexes that find those waiting for one
and those written since a process last looked (packets.search.vectors).

Nothing here blocks a busy hub: the two columns are nullable with no default (PostgreSQL adds them
without rewriting the table), the indexes are built CONCURRENTLY on PostgreSQL (so the migration
runs outside a transaction), and no vector is computed: `manage.py ltm_embed` fills those of the
packets pushed before, in the background."""

from django.db import migrations, models
from django.db.models import Q


class AddIndexWithoutBlocking(migrations.AddIndex):
    """CREATE INDEX CONCURRENTLY on PostgreSQL; a plain CREATE INDEX elsewhere (SQLite). Written with
    the schema editor's own `concurrently` rather than django.contrib.postgres's operation, whose
    module needs PostgreSQL's driver, which a SQLite deployment does not install."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        model = to_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            schema_editor.add_index(model, self.index, **self._without_blocking(schema_editor))

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        model = from_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            schema_editor.remove_index(model, self.index, **self._without_blocking(schema_editor))

    @staticmethod
    def _without_blocking(schema_editor) -> dict:
        return {"concurrently": True} if schema_editor.connection.vendor == "postgresql" else {}


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
