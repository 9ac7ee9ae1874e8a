from allauth.account.decorators import secure_admin_login
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts import services
from accounts.models import ApiToken, User
from core.admin import NoAddMixin

admin.site.site_header = "ltm hub administration"
admin.site.site_title = "ltm hub administration"
admin.site.index_title = "Users, teams, packets and tokens"
# The admin signs in through allauth's page, like everyone: its second factor (or passkey) and
# django-axes' lockout included, rather than a password form of its own that would skip them.
admin.site.login = secure_admin_login(admin.site.login)


@admin.register(User)
class HubUserAdmin(UserAdmin):
    list_display = ("username", "email", "display", "is_active", "is_staff", "date_joined")
    fieldsets = UserAdmin.fieldsets + (("ltm", {"fields": ("display",)}),)
    actions = ["deactivate"]

    # Deleting goes through the service, like the person's own "Delete account": what must outlive
    # the account (the packets they pushed to teams) moves first. Team owners stay undeletable
    # (Team.owner is PROTECT; the admin's confirmation page says so).
    def delete_model(self, request, obj):
        services.user_delete(actor=obj)

    def delete_queryset(self, request, queryset):
        for user in queryset:
            services.user_delete(actor=user)

    @admin.action(description="Deactivate the selected users (they can no longer sign in or use tokens)")
    def deactivate(self, request, queryset):
        # is_active=False: the session backend refuses them and the bearer check skips their tokens.
        count = queryset.exclude(pk=request.user.pk).update(is_active=False)
        self.message_user(request, f"{count} user(s) deactivated.")


@admin.register(ApiToken)
class ApiTokenAdmin(NoAddMixin, admin.ModelAdmin):
    # Tokens are made on the Tokens page (the plaintext is shown once there).
    list_display = ("name", "user", "hint", "scope", "created_at", "expires_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at", "scope")
    search_fields = ("name", "user__username", "hint")
    # The scope is chosen when the token is made: widening it later would surprise its owner.
    readonly_fields = ("token_hash", "hint", "scope", "created_at", "last_used_at", "last_used_address")
