"""DeviceDetails and SpentAuthorizationCode come over from the accounts app with their tables:
Django's state gains them here (and loses them in accounts 0006), the database is not touched,
so a deployed hub keeps its rows. Their content types (and with them any permissions) follow."""

import django.db.models.deletion
from django.db import migrations, models
from oauth2_provider.settings import oauth2_settings

import core.ids

MOVED = ["devicedetails", "spentauthorizationcode"]


def move_content_types(from_label, to_label):
    def move(apps, schema_editor):
        content_types = apps.get_model("contenttypes", "ContentType").objects
        for model in MOVED:
            if not content_types.filter(app_label=to_label, model=model).exists():
                content_types.filter(app_label=from_label, model=model).update(app_label=to_label)

    return move


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("accounts", "0005_digests_of_device_codes_and_session_keys"),
        ("oauth2_provider", "0022_refreshtoken_token_family_index"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="DeviceDetails",
                    fields=[
                        ("id", models.CharField(default=core.ids.new_id, editable=False, max_length=26, primary_key=True, serialize=False)),
                        ("name", models.CharField(help_text="The machine's name: its hostname or what its owner chose.", max_length=64)),
                        ("user_agent", models.CharField(blank=True, max_length=256)),
                        ("client_version", models.CharField(blank=True, max_length=32)),
                        ("requested_from", models.GenericIPAddressField(blank=True, help_text="The address that asked for the code.", null=True)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("last_used_at", models.DateTimeField(blank=True, null=True)),
                        ("last_used_address", models.GenericIPAddressField(blank=True, null=True)),
                        ("access_token", models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name="device_details", to=oauth2_settings.ACCESS_TOKEN_MODEL)),
                        ("grant", models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="details", to=oauth2_settings.DEVICE_GRANT_MODEL)),
                    ],
                    options={
                        "db_table": "accounts_devicedetails",
                        "verbose_name_plural": "device details",
                    },
                ),
                migrations.CreateModel(
                    name="SpentAuthorizationCode",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("code_hash", models.CharField(max_length=64, unique=True)),
                        ("token_family", models.UUIDField(blank=True, null=True)),
                        ("expires_at", models.DateTimeField()),
                        ("access_token", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                                           related_name="+", to=oauth2_settings.ACCESS_TOKEN_MODEL)),
                        ("application", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                                          to=oauth2_settings.APPLICATION_MODEL)),
                    ],
                    options={
                        "db_table": "accounts_spentauthorizationcode",
                    },
                ),
            ],
        ),
        migrations.RunPython(move_content_types("accounts", "oauth"), move_content_types("oauth", "accounts")),
    ]
