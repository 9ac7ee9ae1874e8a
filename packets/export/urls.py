from django.urls import path

from packets.export import views

urlpatterns = [
    path("export/<str:format>", views.packets_export, name="packets-export"),
]
