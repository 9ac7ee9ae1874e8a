"""Authorization codes already exchanged, so that a second exchange revokes what the first one
issued."""

import django.db.models.deletion
from django.db import migrations, models
from oauth2_provider.settings import oauth2_settings


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0003_device_details"),
        ("oauth2_provider", "0022_refreshtoken_token_family_index"),
    ]

    operations = [
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
        ),
    ]
