"""The allauth adapter of single sign-on (SOCIALACCOUNT_ADAPTER): who may come in through the
operator's OpenID Connect provider, and the team they join by their address's domain.

- An address the provider has not verified signs nobody in: the person sees why, and no account
  is made or matched. An existing account is matched only where the hub has verified the address
  too: allauth would also take an account whose address nobody verified (wiping its password), but
  whoever made that account may still hold its API tokens, so the person is asked to verify the
  address on that account first.
- LTM_OIDC_TEAM_DOMAINS: an account made through the provider joins the team of its verified
  address's domain as a member, logged in that team's activity as a join through single sign-on.
- Every refusal of a sign-in (a state already used or unknown, an issuer or signature that does
  not check out, the provider saying no) is a page saying which, with a 4xx status.
"""

from allauth.account.models import EmailAddress
from allauth.core import context
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.providers.base import AuthError
from django.conf import settings
from django.db import transaction
from django.shortcuts import render

from core.http import client_address
from teams.events import team_event_record
from teams.models import Membership, Team, TeamEvent

REFUSED_TEMPLATE = "socialaccount/authentication_error.html"


def _refuse(request, provider, *, title: str, reason: str, status: int = 400):
    context = {
        "provider_name": getattr(provider, "name", "") or settings.LTM_OIDC_NAME,
        "title": title,
        "reason": reason,
    }
    raise ImmediateHttpResponse(render(request, REFUSED_TEMPLATE, context, status=status))


def refusal_reason(*, error, exception, extra_context: dict) -> tuple[str, str]:
    """(title, reason) of a sign-in allauth stopped, in words a person can act on."""
    if exception is None and "state_id" in extra_context:
        return (
            "This sign-in link was already used",
            "The answer from the provider belongs to a sign-in that is finished or was never started "
            "here (its state is unknown). Start again from the sign-in page.",
        )
    cause = getattr(exception, "__cause__", None)
    name = type(cause).__name__ if cause is not None else ""
    if name == "InvalidSignatureError" or "signature" in str(cause or "").lower():
        return (
            "The provider's answer is not signed by it",
            "The ID token's signature does not match the keys the provider publishes, so the hub cannot "
            "trust who it says you are.",
        )
    if name == "InvalidIssuerError" or "issuer" in str(exception or "").lower():
        return (
            "The provider is not the one this hub trusts",
            f"The issuer it names does not match the one configured for this hub: {exception}.",
        )
    if exception is not None:
        return ("Sign-in through the provider failed", f"The provider's answer could not be used: {exception}.")
    return ("Sign-in through the provider failed", f"The provider refused the sign-in ({error}).")


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request, sociallogin) -> bool:
        # The provider decides who exists; LTM_SIGNUP_OPEN is about password sign-ups.
        return True

    def get_client_ip(self, request) -> str:
        return client_address(request)

    def pre_social_login(self, request, sociallogin):
        if not any(address.verified for address in sociallogin.email_addresses):
            _refuse(
                request,
                sociallogin.provider,
                title="Your e-mail address is not verified",
                reason=(
                    "The provider did not say that it verified your e-mail address, and this hub matches "
                    "and makes accounts by verified addresses only. Verify it with the provider, then "
                    "sign in again."
                ),
                status=403,
            )

    def authenticate_by_email(self, sociallogin):
        # allauth's lookup of an existing account by the provider's verified addresses (its
        # adapter is built without the request here, hence allauth's request context).
        matched = super().authenticate_by_email(sociallogin)
        if matched is not None and not _verified_on_hub(*matched):
            _refuse(
                context.request,
                sociallogin.provider,
                title="An account here has your address but has not verified it",
                reason=(
                    f"An account on this hub uses {matched[1]}, and nobody has confirmed the address on it "
                    "yet, so the hub will not hand it to you. If it is yours, sign in with its password, "
                    "verify the address under Account, then sign in through the provider again; if it is "
                    "not, tell the hub's administrator."
                ),
                status=409,
            )
        return matched

    def on_authentication_error(self, request, provider, error=None, exception=None, extra_context=None):
        if error == AuthError.CANCELLED:
            return
        title, reason = refusal_reason(error=error, exception=exception, extra_context=extra_context or {})
        _refuse(request, provider, title=title, reason=reason)

    @transaction.atomic
    def save_user(self, request, sociallogin, form=None):
        user = super().save_user(request, sociallogin, form)
        team = _team_of_domain(sociallogin)
        if team is not None:
            _, joined = Membership.objects.get_or_create(team=team, user=user, defaults={"role": Membership.MEMBER})
            if joined:
                domain = _verified_domains(sociallogin)[0]
                team_event_record(team_id=team.pk, actor=user, kind=TeamEvent.MEMBER_JOINED, via="sso", domain=domain)
        return user


def _verified_on_hub(user, email: str) -> bool:
    return EmailAddress.objects.filter(user=user, email__iexact=email, verified=True).exists()


def _verified_domains(sociallogin) -> list[str]:
    return [
        address.email.rpartition("@")[2].lower()
        for address in sociallogin.email_addresses
        if address.verified and "@" in address.email
    ]


def _team_of_domain(sociallogin) -> Team | None:
    """The team LTM_OIDC_TEAM_DOMAINS gives the first verified address's domain (None: none)."""
    domains = _verified_domains(sociallogin)
    name = settings.LTM_OIDC_TEAM_DOMAINS.get(domains[0]) if domains else None
    return Team.objects.filter(name=name).first() if name else None
