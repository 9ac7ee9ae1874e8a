from django.contrib import admin

from accounts.admin import NoAddMixin
from teams.models import Invite, Membership, Team


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)
    readonly_fields = ("joined_at",)


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "member_count", "created_at")
    search_fields = ("name", "owner__username", "owner__email")
    raw_id_fields = ("owner",)
    readonly_fields = ("id", "created_at")
    inlines = [MembershipInline]

    @admin.display(description="members")
    def member_count(self, team):
        return team.memberships.count()


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("team", "user", "role", "joined_at")
    list_filter = ("role",)
    search_fields = ("team__name", "user__username", "user__email")
    raw_id_fields = ("team", "user")


@admin.register(Invite)
class InviteAdmin(NoAddMixin, admin.ModelAdmin):
    # Only the code's hash is stored: an admin can see and revoke invites, never reuse one. An invite
    # made here would have a code nobody can see, so they are made on the team page or by the API.
    list_display = ("id", "team", "created_by", "created_at", "expires_at", "used_at", "used_by", "revoked_at")
    list_filter = ("used_at", "revoked_at")
    search_fields = ("team__name", "created_by__username", "used_by__username")
    raw_id_fields = ("team", "created_by", "used_by")
    readonly_fields = ("code_hash", "created_at")
