"""Wire routes of webhooks."""

from django.urls import path

from webhooks import api

urlpatterns = [
    path("v1/webhooks", api.WebhookCollection.as_view(), name="api-webhooks"),
    path("v1/webhooks/<str:webhook_id>", api.WebhookItem.as_view(), name="api-webhook"),
    path("v1/webhooks/<str:webhook_id>/rotate", api.WebhookRotate.as_view(), name="api-webhook-rotate"),
    path("v1/webhooks/<str:webhook_id>/ping", api.WebhookPing.as_view(), name="api-webhook-ping"),
    path("v1/webhooks/<str:webhook_id>/deliveries", api.WebhookDeliveries.as_view(), name="api-webhook-deliveries"),
    path(
        "v1/webhooks/<str:webhook_id>/deliveries/<str:delivery_id>/redeliver",
        api.DeliveryRedeliver.as_view(),
        name="api-webhook-redeliver",
    ),
]
