"""Admin mixins for rows that only the services can write correctly."""


class NoAddMixin:
    """For rows that only the API or the dashboard can make correctly (hashed secrets, a packet's
    validated body): the admin can list, change and delete them, never add one."""

    def has_add_permission(self, request, obj=None):
        return False


class ReadOnlyMixin(NoAddMixin):
    """Rows whose invariants only the services keep (a team's one owner, who is a member): the
    admin shows them and edits nothing."""

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
