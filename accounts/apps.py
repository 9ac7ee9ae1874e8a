from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
    # allauth's app is also labelled "Accounts" in the admin; this one holds users and API tokens.
    verbose_name = "People and tokens"

    def ready(self):
        from django.db.models.signals import pre_save
        from oauth2_provider.models import get_application_model, get_device_grant_model

        from accounts.device_flow import store_device_code_digest
        from accounts.oauth import application_redirect_schemes

        # The toolkit's hook for an application's redirect schemes is this method, meant to be
        # overridden by a custom application model; the hub keeps the toolkit's model (swapping
        # it needs a fresh database), so it sets the method here.
        get_application_model().get_allowed_schemes = application_redirect_schemes
        # A device_code is stored as its digest (accounts.device_flow).
        pre_save.connect(store_device_code_digest, sender=get_device_grant_model())
