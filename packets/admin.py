from django.contrib import admin

from core.admin import NoAddMixin
from packets.models import Packet


@admin.register(Packet)
class PacketAdmin(NoAddMixin, admin.ModelAdmin):
    # Packets arrive validated through the API (`ltm push`); here they can be listed, changed, deleted.
    list_display = ("id", "short_goal", "owner", "team", "project", "created_at", "published_at")
    list_filter = ("ltm_version", ("team", admin.RelatedOnlyFieldListFilter))
    search_fields = ("id", "goal", "next_step", "project", "tags", "owner__username", "team__name")
    raw_id_fields = ("owner", "team")
    date_hierarchy = "created_at"
    # The body is the packet as pushed; editing it here would bypass validation.
    readonly_fields = (
        "id",
        "ltm_version",
        "created_at",
        "goal",
        "next_step",
        "parent_id",
        "project",
        "tags",
        "body",
        "pushed_at",
        "public_slug",
        "published_at",
    )

    @admin.display(description="goal")
    def short_goal(self, packet):
        return packet.goal[:80]
