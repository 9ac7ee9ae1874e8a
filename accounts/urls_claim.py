"""Claiming a web sign-in for an account made by `ltm join` (see accounts/claim.py).

Mounted at the site root: the API route lives here, next to the page it links to, rather than
in another app's /v1 module.
"""

from django.urls import path

from accounts import claim

urlpatterns = [
    path("v1/account/claim-link", claim.ClaimLinkApi.as_view(), name="api-claim-link"),
    path("claim/<str:code>", claim.claim_page, name="account-claim"),
]
