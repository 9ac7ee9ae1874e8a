"""Wire routes about people: the claim link of an account made by `ltm join`."""

from django.urls import path

from accounts import api

urlpatterns = [
    path("v1/account/claim-link", api.ClaimLinkApi.as_view(), name="api-claim-link"),
]
