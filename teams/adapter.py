"""The allauth adapter: team invites reach into sign-up, client addresses come from core, and
the sign-in pages say why they ask when the person is on the way to connect a client.

LTM_SIGNUP_OPEN=0 closes self-service sign-up (a private hub). Someone holding a usable team
invite may still sign up from its page (the sign-up's `next` is the invite), as they could with
`ltm join`. The adapter lives with teams because that exception is about invites.

LTM_OIDC_ONLY=1 (single sign-on only): no password sign-up at all, and a password signs in the
hub's superusers alone, the recovery path when the provider is away (docs/sign-in.md).
"""

import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.core.exceptions import ValidationError
from oauth2_provider.models import get_application_model

from core.http import client_address
from teams.selectors import invite_get_for_page

INVITE_PATH = re.compile(r"^/v1/invites/([^/?#]+)$")
# Where a sign-in on the way to connecting a client leads: the device flow's page (the `ltm`
# client) and the OAuth consent page (an app that signs itself in, e.g. an MCP client).
DEVICE_PATH = re.compile(r"^/device(/|$)")
AUTHORIZE_PATH = "/oauth/authorize"


@dataclass(frozen=True)
class SignInReason:
    """Why the sign-in (or sign-up) page asks: "device", or "app" with the app's name if the hub
    knows the client ("" for a client it does not know, or that gave no name)."""

    kind: str
    app_name: str = ""


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request) -> bool:
        if settings.LTM_OIDC_ONLY:
            return False
        return settings.LTM_SIGNUP_OPEN or _next_is_usable_invite(request)

    def authenticate(self, request, **credentials):
        user = super().authenticate(request, **credentials)
        if user is not None and settings.LTM_OIDC_ONLY and not user.is_superuser:
            raise ValidationError(
                f"This hub signs people in through {settings.LTM_OIDC_NAME or 'single sign-on'}: "
                "use the button above. Passwords are for the administrators' recovery only."
            )
        return user

    def get_client_ip(self, request) -> str:
        # allauth's rate limits (and the device-flow limit built on them) count per address: the
        # hub's one notion of it, which trusts a proxy only with LTM_TRUST_PROXY_HEADERS=1.
        return client_address(request)

    def is_safe_url(self, url: str) -> bool:
        # A `next` that is not a URL at all (`//[`) makes urllib raise: not safe, rather than a 500.
        try:
            return super().is_safe_url(url)
        except ValueError:
            return False

    def sign_in_reason(self, next_url: str) -> SignInReason | None:
        """Why the sign-in page asks, read from where it leads (`next`): the device flow, or an
        app's consent page (its `client_id` names the app); None for anywhere else."""
        try:
            parts = urlsplit(next_url)
        except ValueError:  # e.g. "//[": a `next` is whatever the address says
            return None
        if parts.scheme or parts.netloc:  # only the hub's own pages are a reason
            return None
        if DEVICE_PATH.match(parts.path):
            return SignInReason("device")
        if parts.path.rstrip("/") == AUTHORIZE_PATH:
            client_id = parse_qs(parts.query).get("client_id", [""])[0]
            return SignInReason("app", _application_name(client_id))
        return None


def _next_is_usable_invite(request) -> bool:
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    match = INVITE_PATH.match(next_url)
    if match is None:
        return False
    invite = invite_get_for_page(code=match.group(1))
    return invite is not None and invite.is_usable()


def _application_name(client_id: str) -> str:
    """The name of the OAuth application `client_id`, "" if none or unknown."""
    if not client_id:
        return ""
    return get_application_model().objects.filter(client_id=client_id).values_list("name", flat=True).first() or ""
