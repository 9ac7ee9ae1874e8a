from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("teams", "0004_settings_share_outside_secret_scan"),
    ]

    operations = [
        migrations.AddField(
            model_name="team",
            name="require_mfa",
            field=models.BooleanField(default=False),
        ),
    ]
