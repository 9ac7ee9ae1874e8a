from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
    # allauth's app is also labelled "Accounts" in the admin; this one holds users and API tokens.
    verbose_name = "People and tokens"

    def ready(self):
        from accounts import mfa

        # A wrong second-factor code counts towards django-axes' lockout (accounts.mfa).
        mfa.connect()
