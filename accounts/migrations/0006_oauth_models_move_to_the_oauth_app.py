"""DeviceDetails and SpentAuthorizationCode now belong to the oauth app (its migration 0001):
they leave this app's state only; their tables stay as they are."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0005_digests_of_device_codes_and_session_keys"),
        ("oauth", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.DeleteModel(name="DeviceDetails"),
                migrations.DeleteModel(name="SpentAuthorizationCode"),
            ],
        ),
    ]
