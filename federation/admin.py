"""The operator's page of federation (/admin/federation/): the hubs this one met, with their
counts and last errors, and the block that refuses a hub's messages and sends it none; the
messages and the remote shares, to look at."""

from django.contrib import admin

from core.admin import NoAddMixin, ReadOnlyMixin
from federation.models import Message, Peer, Received, RemoteShare


@admin.register(Peer)
class PeerAdmin(NoAddMixin, admin.ModelAdmin):
    list_display = ("host", "name", "blocked", "sent", "failed", "received", "refused", "last_error", "last_error_at")
    list_filter = ("blocked",)
    search_fields = ("host", "name")
    fields = (
        "host",
        "name",
        "blocked",
        "inbox",
        "sent",
        "failed",
        "received",
        "refused",
        "last_error",
        "last_error_at",
    )
    readonly_fields = tuple(name for name in fields if name != "blocked")
    actions = ("block", "unblock")

    @admin.action(description="Block the selected hubs")
    def block(self, request, queryset):
        queryset.update(blocked=True)

    @admin.action(description="Unblock the selected hubs")
    def unblock(self, request, queryset):
        queryset.update(blocked=False)


@admin.register(Message)
class MessageAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("id", "kind", "host", "state", "attempts", "last_error", "created_at", "sent_at")
    list_filter = ("state", "kind")
    search_fields = ("id", "host", "share_id")
    exclude = ("body",)


@admin.register(RemoteShare)
class RemoteShareAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("id", "packet_id", "sender", "address", "state", "reason", "created_at")
    list_filter = ("state",)
    search_fields = ("packet_id", "address", "sender__username")


@admin.register(Received)
class ReceivedAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("packet_id", "host", "owner", "kid", "received_at", "updated_at")
    search_fields = ("packet_id", "host")
