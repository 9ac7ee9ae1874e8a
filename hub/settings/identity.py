"""Who a person is beyond a password: second factors and passkeys (allauth.mfa), single sign-on
through the operator's OpenID Connect provider (allauth.socialaccount) and the hub as an OpenID
Connect provider itself (django-oauth-toolkit). docs/sign-in.md is the operator's guide."""

from urllib.parse import urlsplit

from .environment import env
from .oauth import OAUTH2_PROVIDER

# Second factors: an authenticator app (TOTP), recovery codes (each usable once, shown once) and
# WebAuthn keys, which also sign in alone as passkeys. Secrets are encrypted at rest and wrong
# codes count towards django-axes' lockout like wrong passwords (accounts.mfa).
MFA_ADAPTER = "accounts.mfa.HubMFAAdapter"
MFA_FORMS = {
    "authenticate": "accounts.mfa.CodeForm",
    "reauthenticate": "accounts.mfa.ReauthenticateCodeForm",
}
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes", "webauthn"]
MFA_PASSKEY_LOGIN_ENABLED = True
MFA_RECOVERY_CODES_SHOW_ONCE = True
MFA_TOTP_ISSUER = env("LTM_MFA_ISSUER", default="ltm hub")
# allauth would first ask for a verified e-mail address; accounts made by `ltm join` have none,
# and their owners need a second factor as much as anyone.
MFA_ALLOW_UNVERIFIED_EMAIL = True
# Browsers offer WebAuthn on https and on http://localhost; the library checks the origin's
# scheme itself and wants https unless told otherwise (development and tests say so).
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = env.bool("LTM_WEBAUTHN_ALLOW_HTTP", default=False)

# Single sign-on: one generic OpenID Connect provider, from the environment. The issuer's
# discovery document gives the endpoints; PKCE always; an account is matched by a verified e-mail
# address only (teams.sso refuses a sign-in whose address the provider has not verified).
LTM_OIDC_NAME = env("LTM_OIDC_NAME", default="")
LTM_OIDC_ISSUER = env("LTM_OIDC_ISSUER", default="").rstrip("/")
LTM_OIDC_CLIENT_ID = env("LTM_OIDC_CLIENT_ID", default="")
LTM_OIDC_CLIENT_SECRET = env("LTM_OIDC_CLIENT_SECRET", default="")
LTM_OIDC_ENABLED = bool(LTM_OIDC_ISSUER and LTM_OIDC_CLIENT_ID)
# The sign-in button's form ends at the provider's authorization endpoint, on the issuer's
# origin: the pages' Content-Security-Policy lets forms go there (base.py).
_issuer = urlsplit(LTM_OIDC_ISSUER)
LTM_OIDC_FORM_ACTION = [f"{_issuer.scheme}://{_issuer.netloc}"] if LTM_OIDC_ENABLED else []
# LTM_OIDC_ONLY=1: no password sign-up, and password sign-in for superusers alone (the recovery
# path when the provider is away).
LTM_OIDC_ONLY = env.bool("LTM_OIDC_ONLY", default=False) and LTM_OIDC_ENABLED
# "example.com=acme,example.org=lab": an account signing in through the provider with a verified
# address at a domain joins that team as a member, on its first sign-in.
LTM_OIDC_TEAM_DOMAINS = {
    domain.strip().lower(): team.strip()
    for domain, team in env.dict("LTM_OIDC_TEAM_DOMAINS", default={}).items()
    if domain.strip() and team.strip()
}
SOCIALACCOUNT_ADAPTER = "teams.sso.SocialAccountAdapter"
SOCIALACCOUNT_EMAIL_AUTHENTICATION = True
SOCIALACCOUNT_EMAIL_AUTHENTICATION_AUTO_CONNECT = True
SOCIALACCOUNT_LOGIN_ON_GET = False
SOCIALACCOUNT_STORE_TOKENS = False
SOCIALACCOUNT_PROVIDERS = {
    "openid_connect": {
        # allauth's provider with the hub's stricter checks of the issuer and the ID token.
        "provider_class": "accounts.oidc.provider.HubOIDCProvider",
        "OAUTH_PKCE_ENABLED": True,
        "APPS": [
            {
                "provider_id": "sso",
                "name": LTM_OIDC_NAME or "single sign-on",
                "client_id": LTM_OIDC_CLIENT_ID,
                "secret": LTM_OIDC_CLIENT_SECRET,
                "settings": {"server_url": LTM_OIDC_ISSUER, "oauth_pkce_enabled": True},
            }
        ]
        if LTM_OIDC_ENABLED
        else [],
    }
}

# The hub as an OpenID Connect provider: discovery, JWKS, ID tokens signed RS256 with this key
# (PEM; `make run` writes a development one), userinfo and the openid, profile and email scopes.
# Without a key the provider is off.
LTM_OIDC_RSA_KEY = env("LTM_OIDC_RSA_KEY", default="").replace("\\n", "\n")


def oidc_provider(rsa_key: str) -> dict:
    """What OAUTH2_PROVIDER holds more when the hub is an OpenID Connect provider."""
    return {
        "OIDC_ENABLED": True,
        "OIDC_RSA_PRIVATE_KEY": rsa_key,
        "OIDC_RESPONSE_TYPES_SUPPORTED": ["code"],
        "SCOPES": {
            **OAUTH2_PROVIDER["SCOPES"],
            "openid": "know that you are you on this hub",
            "profile": "see your username and display name",
            "email": "see your e-mail address and whether it is verified",
        },
    }


if LTM_OIDC_RSA_KEY:
    OAUTH2_PROVIDER.update(oidc_provider(LTM_OIDC_RSA_KEY))
# The toolkit picks OIDC_SERVER_CLASS over OAUTH2_SERVER_CLASS once OIDC is on: the same class.
OAUTH2_PROVIDER["OIDC_SERVER_CLASS"] = OAUTH2_PROVIDER["OAUTH2_SERVER_CLASS"]
