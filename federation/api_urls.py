from django.urls import path

from federation import api

urlpatterns = [
    path(".well-known/ltm-hub", api.HubDocument.as_view(), name="federation-hub"),
    path("v1/federation/inbox", api.Inbox.as_view(), name="federation-inbox"),
]
