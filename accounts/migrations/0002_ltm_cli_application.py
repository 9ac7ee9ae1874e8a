"""The public OAuth client `ltm-cli` exists on every hub, so `ltm auth` works without an admin step."""

from django.db import migrations

CLIENT_ID = "ltm-cli"


def create_cli_application(apps, schema_editor):
    Application = apps.get_model("oauth2_provider", "Application")
    Application.objects.get_or_create(
        client_id=CLIENT_ID,
        defaults={
            "name": "ltm command-line client",
            "client_type": "public",
            "authorization_grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            "client_secret": "",
            "hash_client_secret": False,
            "redirect_uris": "",
            "skip_authorization": False,
        },
    )


def remove_cli_application(apps, schema_editor):
    apps.get_model("oauth2_provider", "Application").objects.filter(client_id=CLIENT_ID).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("oauth2_provider", "0022_refreshtoken_token_family_index"),
    ]

    operations = [migrations.RunPython(create_cli_application, remove_cli_application)]
