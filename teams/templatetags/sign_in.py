"""The sign-in and sign-up pages' line on why the person is asked to sign in (see
teams.adapter.AccountAdapter.sign_in_reason)."""

from allauth.account.adapter import get_adapter
from django import template
from django.conf import settings

register = template.Library()


@register.simple_tag(takes_context=True)
def sign_in_reason(context, next_url):
    """Where the sign-in leads (`next`), as a reason to show: None, or one with `kind` "device"
    (the ltm client's device flow) or "app" (an app's OAuth consent, `app_name` if known)."""
    return get_adapter(context.request).sign_in_reason(next_url or "")


@register.simple_tag
def passwords_only_for_recovery() -> bool:
    """LTM_OIDC_ONLY: people sign in through the provider; the password form is the recovery path
    of the hub's superusers (teams.adapter)."""
    return settings.LTM_OIDC_ONLY
