"""A packet the secret scan quarantines loses its public page (Packet.record_scan): its link stays
dead, and publishing it again once the quarantine ends makes a new one. Packets quarantined before
that still kept their slug (their page answered 404, but a pull still named the URL and a clean
re-push brought it back): their pages are taken down now. Nothing to undo."""

from django.db import migrations


def take_pages_down(apps, schema_editor):
    Packet = apps.get_model("packets", "Packet")
    Packet.objects.filter(quarantined=True, public_slug__isnull=False).update(public_slug=None, published_at=None)


class Migration(migrations.Migration):
    dependencies = [("packets", "0013_sqlite_search_index_off_the_push")]

    operations = [migrations.RunPython(take_pages_down, migrations.RunPython.noop)]
