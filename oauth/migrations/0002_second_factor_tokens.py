import django.db.models.deletion
from django.db import migrations, models
from oauth2_provider.settings import oauth2_settings


class Migration(migrations.Migration):
    dependencies = [
        ("oauth", "0001_initial"),
        migrations.swappable_dependency(oauth2_settings.ACCESS_TOKEN_MODEL),
        migrations.swappable_dependency(oauth2_settings.GRANT_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="devicedetails",
            name="second_factor",
            field=models.BooleanField(default=False),
        ),
        migrations.CreateModel(
            name="SecondFactorToken",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "access_token",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="second_factor",
                        to=oauth2_settings.ACCESS_TOKEN_MODEL,
                    ),
                ),
                (
                    "grant",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=oauth2_settings.GRANT_MODEL,
                    ),
                ),
            ],
        ),
    ]
