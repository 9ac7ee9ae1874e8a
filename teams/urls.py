"""Pages of teams: the invite link a browser opens, and the dashboard's team pages."""

from django.urls import path

from teams import views

urlpatterns = [
    # The same URL `ltm join` splits is the page a browser opens (HTML, session sign-in).
    path("v1/invites/<str:code>", views.invite_page, name="invite-page"),
    path("teams", views.team_list, name="team-list"),
    path("teams/<str:name>", views.team_detail, name="team-detail"),
    path("teams/<str:name>/invites", views.invite_create, name="team-invite-create"),
    path("teams/<str:name>/invites/<str:invite_id>/revoke", views.invite_revoke, name="team-invite-revoke"),
    path("teams/<str:name>/members/<str:user_id>/remove", views.member_remove, name="team-member-remove"),
    path("teams/<str:name>/invites/<str:invite_id>/resend", views.invite_resend, name="team-invite-resend"),
    path("teams/<str:name>/members/<str:user_id>/role", views.member_role, name="team-member-role"),
    path("teams/<str:name>/transfer", views.team_transfer, name="team-transfer"),
    path("teams/<str:name>/transfer/accept", views.team_transfer_accept, name="team-transfer-accept"),
    path("teams/<str:name>/transfer/cancel", views.team_transfer_cancel, name="team-transfer-cancel"),
    path("teams/<str:name>/activity", views.team_activity, name="team-activity"),
    path("teams/<str:name>/sharing/allow", views.team_share_outside_allow, name="team-share-outside-allow"),
    path("teams/<str:name>/sharing/stop", views.team_share_outside_stop, name="team-share-outside-stop"),
    path("teams/<str:name>/secret-scan", views.team_secret_scan, name="team-secret-scan"),
    path("teams/<str:name>/leave", views.team_leave, name="team-leave"),
    path("teams/<str:name>/delete", views.team_delete, name="team-delete"),
]
