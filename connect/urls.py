"""The Python client as a wheel this hub built (connect/wheel.py), and the page that says how to
install it."""

from django.urls import path

from connect import views

urlpatterns = [
    path("client/", views.client_page, name="client"),
    path("client/ltm.whl", views.client_wheel_latest, name="client-wheel-latest"),
    path("client/<str:filename>", views.client_wheel_file, name="client-wheel"),
]
