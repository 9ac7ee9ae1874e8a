"""Pages of teams: the invite link a browser opens, and the dashboard's team pages."""

from django.urls import path

from teams.views import actions, invites, pages, settings

urlpatterns = [
    # The same URL `ltm join` splits is the page a browser opens (HTML, session sign-in).
    path("v1/invites/<str:code>", invites.invite_page, name="invite-page"),
    path("teams", pages.team_list, name="team-list"),
    path("teams/<str:name>", pages.team_detail, name="team-detail"),
    path("teams/<str:name>/invites", invites.invite_create, name="team-invite-create"),
    path("teams/<str:name>/invites/<str:invite_id>/revoke", actions.invite_revoke, name="team-invite-revoke"),
    path("teams/<str:name>/members/<str:user_id>/remove", actions.member_remove, name="team-member-remove"),
    path("teams/<str:name>/invites/<str:invite_id>/resend", actions.invite_resend, name="team-invite-resend"),
    path("teams/<str:name>/members/<str:user_id>/role", actions.member_role, name="team-member-role"),
    path("teams/<str:name>/transfer", actions.team_transfer, name="team-transfer"),
    path("teams/<str:name>/transfer/accept", actions.team_transfer_accept, name="team-transfer-accept"),
    path("teams/<str:name>/transfer/cancel", actions.team_transfer_cancel, name="team-transfer-cancel"),
    path("teams/<str:name>/activity", pages.team_activity, name="team-activity"),
    path("teams/<str:name>/sharing/allow", settings.team_share_outside_allow, name="team-share-outside-allow"),
    path("teams/<str:name>/sharing/stop", settings.team_share_outside_stop, name="team-share-outside-stop"),
    path("teams/<str:name>/secret-scan", settings.team_secret_scan, name="team-secret-scan"),
    path("teams/<str:name>/second-factor/require", settings.team_require_mfa_on, name="team-require-mfa-on"),
    path("teams/<str:name>/second-factor/stop", settings.team_require_mfa_off, name="team-require-mfa-off"),
    path("teams/<str:name>/leave", actions.team_leave, name="team-leave"),
    path("teams/<str:name>/delete", actions.team_delete, name="team-delete"),
]
