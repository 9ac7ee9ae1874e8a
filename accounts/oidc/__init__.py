"""Sign-in through the operator's OpenID Connect provider: allauth's generic provider
(allauth.socialaccount.providers.openid_connect), checked more strictly (see views)."""
