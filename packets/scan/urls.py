"""Pages of the secret scan: Clear findings on a packet's page, and the review queue."""

from django.urls import path

from packets.scan import views

urlpatterns = [
    path("packets/<path:packet_id>/findings/clear", views.packet_findings_clear, name="packet-findings-clear"),
    path("findings", views.findings_page, name="findings"),
]
