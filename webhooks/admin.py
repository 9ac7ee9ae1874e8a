from django.contrib import admin

from core.admin import ReadOnlyMixin
from webhooks.models import Delivery, Webhook


@admin.register(Webhook)
class WebhookAdmin(ReadOnlyMixin, admin.ModelAdmin):
    # Made and changed by their owners (the API, the dashboard, the CLI); shown without secrets.
    list_display = ("id", "owner", "team", "host", "active", "off_reason", "created_at")
    list_filter = ("active", "format")
    search_fields = ("id", "owner__username", "team__name")
    fields = ("id", "owner", "team", "created_by", "events", "format", "active", "off_reason", "created_at")


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("id", "webhook", "event", "status", "attempts", "response_status", "created_at")
    list_filter = ("status", "event")
    search_fields = ("id", "webhook__id")
    exclude = ("body",)
