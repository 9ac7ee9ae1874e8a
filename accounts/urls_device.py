"""The device-flow pages a person opens from `ltm auth`: /device and its steps."""

from django.urls import path

from accounts import device_views

urlpatterns = [
    path("device", device_views.device_enter, name="device"),
    path("device/decide", device_views.device_decide, name="device_decide"),
    path("device/done/<str:outcome>", device_views.device_done, name="device_done"),
]
