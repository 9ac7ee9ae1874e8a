from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import ApiToken, User


@admin.register(User)
class HubUserAdmin(UserAdmin):
    list_display = ("username", "email", "display", "is_active", "is_staff", "date_joined")
    fieldsets = UserAdmin.fieldsets + (("ltm", {"fields": ("display",)}),)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "hint", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "user__username", "hint")
    readonly_fields = ("token_hash", "hint", "created_at", "last_used_at")
