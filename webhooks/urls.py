"""Pages of webhooks: a person's, a team's, and each webhook's with its actions."""

from django.urls import path

from webhooks import views

urlpatterns = [
    path("webhooks", views.webhook_list_page, name="webhooks"),
    path("teams/<str:name>/webhooks", views.webhook_list_page, name="team-webhooks"),
    path("webhooks/<str:webhook_id>", views.webhook_page, name="webhook-detail"),
    path("webhooks/<str:webhook_id>/ping", views.webhook_ping, name="webhook-ping"),
    path("webhooks/<str:webhook_id>/rotate", views.webhook_rotate, name="webhook-rotate"),
    path("webhooks/<str:webhook_id>/active", views.webhook_active, name="webhook-active"),
    path("webhooks/<str:webhook_id>/delete", views.webhook_delete, name="webhook-delete"),
    path(
        "webhooks/<str:webhook_id>/deliveries/<str:delivery_id>/redeliver",
        views.delivery_redeliver,
        name="webhook-redeliver",
    ),
]
