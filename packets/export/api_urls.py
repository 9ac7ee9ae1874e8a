from django.urls import path

from packets.export import api

urlpatterns = [
    path("v1/export", api.Export.as_view(), name="api-export"),
]
