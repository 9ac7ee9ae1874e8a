from django.contrib import admin

from core.admin import NoAddMixin, ReadOnlyMixin
from teams.models import Invite, Membership, Team, TeamEvent


# Memberships are read-only here: only the team services keep a team's one owner a member.
class MembershipInline(ReadOnlyMixin, admin.TabularInline):
    model = Membership
    extra = 0
    fields = readonly_fields = ("user", "role", "joined_at")


@admin.register(Team)
class TeamAdmin(NoAddMixin, admin.ModelAdmin):
    # Teams are created by the API or the dashboard (which make the owner a member); an admin may
    # rename or delete one, and sees its members.
    list_display = ("name", "owner", "member_count", "created_at")
    search_fields = ("name", "owner__username", "owner__email")
    # An ownership offer is made and answered by the people concerned, on the team's page.
    readonly_fields = ("id", "owner", "created_at", "transfer_to", "transfer_offered_at")
    inlines = [MembershipInline]

    @admin.display(description="members")
    def member_count(self, team):
        return team.memberships.count()


@admin.register(Membership)
class MembershipAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("team", "user", "role", "joined_at")
    list_filter = ("role",)
    search_fields = ("team__name", "user__username", "user__email")


@admin.register(Invite)
class InviteAdmin(NoAddMixin, admin.ModelAdmin):
    # Only the code's hash is stored: an admin can see and revoke invites, never reuse one. An invite
    # made here would have a code nobody can see, so they are made on the team page or by the API.
    list_display = (
        "id",
        "team",
        "email",
        "label",
        "created_by",
        "created_at",
        "expires_at",
        "used_at",
        "used_by",
        "revoked_at",
    )
    list_filter = ("used_at", "revoked_at")
    search_fields = ("team__name", "email", "label", "created_by__username", "used_by__username")
    raw_id_fields = ("team", "created_by", "used_by")
    readonly_fields = ("code_hash", "created_at", "mailed_at")


@admin.register(TeamEvent)
class TeamEventAdmin(ReadOnlyMixin, admin.ModelAdmin):
    # The activity log is append-only: the admin reads it; it goes only with its team.
    list_display = ("created_at", "team", "kind", "actor_name")
    list_filter = ("kind",)
    search_fields = ("team__name", "actor_name")
    list_select_related = ("team",)
