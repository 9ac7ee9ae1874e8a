"""The allauth adapter: team invites reach into sign-up, and client addresses come from core.

LTM_SIGNUP_OPEN=0 closes self-service sign-up (a private hub). Someone holding a usable team
invite may still sign up from its page (the sign-up's `next` is the invite), as they could with
`ltm join`. The adapter lives with teams because that exception is about invites.
"""

import re

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings

from core.http import client_address
from teams.selectors import invite_get_for_page

INVITE_PATH = re.compile(r"^/v1/invites/([^/?#]+)$")


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request) -> bool:
        return settings.LTM_SIGNUP_OPEN or _next_is_usable_invite(request)

    def get_client_ip(self, request) -> str:
        # allauth's rate limits (and the device-flow limit built on them) count per address: the
        # hub's one notion of it, which trusts a proxy only with LTM_TRUST_PROXY_HEADERS=1.
        return client_address(request)


def _next_is_usable_invite(request) -> bool:
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    match = INVITE_PATH.match(next_url)
    if match is None:
        return False
    invite = invite_get_for_page(code=match.group(1))
    return invite is not None and invite.is_usable()
