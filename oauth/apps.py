from django.apps import AppConfig


class OAuthConfig(AppConfig):
    name = "oauth"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "OAuth server"

    def ready(self):
        from django.db.models.signals import pre_save
        from oauth2_provider.models import get_application_model, get_device_grant_model

        from oauth.device_flow import store_device_code_digest
        from oauth.redirect_uris import application_redirect_schemes

        # The toolkit's hook for an application's redirect schemes is this method, meant to be
        # overridden by a custom application model; the hub keeps the toolkit's model (swapping
        # it needs a fresh database), so it sets the method here.
        get_application_model().get_allowed_schemes = application_redirect_schemes
        # A device_code is stored as its digest (oauth.device_flow).
        pre_save.connect(store_device_code_digest, sender=get_device_grant_model())
