"""Personal API tokens get an expiry, a scope and the address of their last use; devices signed in
through the device flow get a name, a client, the address that asked and their last use."""

import core.ids
import django.db.models.deletion
from django.db import migrations, models
from oauth2_provider.settings import oauth2_settings


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0002_ltm_cli_application'),
        ("oauth2_provider", "0022_refreshtoken_token_family_index"),
    ]

    operations = [
        migrations.AddField(
            model_name='apitoken',
            name='expires_at',
            field=models.DateTimeField(blank=True, help_text='Empty: never expires.', null=True),
        ),
        migrations.AddField(
            model_name='apitoken',
            name='last_used_address',
            field=models.GenericIPAddressField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='apitoken',
            name='scope',
            field=models.CharField(default='read write', help_text='read, or read write', max_length=32),
        ),
        migrations.CreateModel(
            name='DeviceDetails',
            fields=[
                ('id', models.CharField(default=core.ids.new_id, editable=False, max_length=26, primary_key=True, serialize=False)),
                ('name', models.CharField(help_text="The machine's name: its hostname or what its owner chose.", max_length=64)),
                ('user_agent', models.CharField(blank=True, max_length=256)),
                ('client_version', models.CharField(blank=True, max_length=32)),
                ('requested_from', models.GenericIPAddressField(blank=True, help_text='The address that asked for the code.', null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('last_used_at', models.DateTimeField(blank=True, null=True)),
                ('last_used_address', models.GenericIPAddressField(blank=True, null=True)),
                ('access_token', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='device_details', to=oauth2_settings.ACCESS_TOKEN_MODEL)),
                ('grant', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='details', to=oauth2_settings.DEVICE_GRANT_MODEL)),
            ],
            options={
                'verbose_name_plural': 'device details',
            },
        ),
    ]
