from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_user_share_mail"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="second_factor",
            field=models.BooleanField(default=False),
        ),
    ]
