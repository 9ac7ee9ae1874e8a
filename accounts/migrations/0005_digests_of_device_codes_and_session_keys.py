"""The device grants' table and the session table keep digests instead of the secrets themselves
(accounts.device_flow.device_code_digest, accounts.sessions.stored_key): the rows already there
are rewritten, so sign-ins under way and people signed in carry on. Going back leaves them as
they are: the old code then finds neither, as if they had expired."""

import hashlib

from django.db import migrations
from django.utils import timezone


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def store_digests(apps, schema_editor):
    # A row is rewritten once: a digest is hex, 64 characters (40 for a session key); the
    # toolkit's device codes are 30 letters and digits, Django's session keys 32.
    grants = apps.get_model("oauth2_provider", "DeviceGrant").objects
    for pk, code in list(grants.exclude(device_code__regex=r"^[0-9a-f]{64}$").values_list("pk", "device_code")):
        grants.filter(pk=pk).update(device_code=sha256(code))

    sessions = apps.get_model("sessions", "Session").objects
    sessions.filter(expire_date__lt=timezone.now()).delete()
    for key in list(sessions.exclude(session_key__regex=r"^[0-9a-f]{40}$").values_list("session_key", flat=True)):
        sessions.filter(session_key=key).update(session_key=sha256(key)[:40])


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0004_spent_authorization_code"),
        ("oauth2_provider", "0022_refreshtoken_token_family_index"),
        ("sessions", "0001_initial"),
    ]

    operations = [migrations.RunPython(store_digests, migrations.RunPython.noop)]
