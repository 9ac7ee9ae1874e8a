"""The allauth adapter: the hub's hooks into sign-up and sign-in."""

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request) -> bool:
        """LTM_SIGNUP_OPEN=0 closes self-service sign-up (a private hub)."""
        return settings.LTM_SIGNUP_OPEN
