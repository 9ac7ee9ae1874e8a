"""Wire routes of teams and invites."""

from django.urls import path

from teams import api

urlpatterns = [
    path("v1/teams", api.TeamCollection.as_view(), name="api-teams"),
    path("v1/teams/<str:name>", api.TeamItem.as_view(), name="api-team"),
    path("v1/teams/<str:name>/members", api.TeamMembers.as_view(), name="api-team-members"),
    path("v1/teams/<str:name>/members/<str:user_id>", api.TeamMember.as_view(), name="api-team-member"),
    path("v1/teams/<str:name>/members/<str:user_id>/role", api.TeamMemberRole.as_view(), name="api-team-member-role"),
    path("v1/teams/<str:name>/leave", api.TeamLeave.as_view(), name="api-team-leave"),
    path("v1/teams/<str:name>/transfer", api.TeamTransfer.as_view(), name="api-team-transfer"),
    path("v1/teams/<str:name>/transfer/accept", api.TeamTransferAccept.as_view(), name="api-team-transfer-accept"),
    path("v1/teams/<str:name>/events", api.TeamEvents.as_view(), name="api-team-events"),
    path("v1/teams/<str:name>/invites", api.TeamInvites.as_view(), name="api-team-invites"),
    path("v1/teams/<str:name>/invites/<str:invite_id>", api.TeamInvite.as_view(), name="api-team-invite"),
    path(
        "v1/teams/<str:name>/invites/<str:invite_id>/resend",
        api.TeamInviteResend.as_view(),
        name="api-team-invite-resend",
    ),
    path("v1/invites/<str:code>/accept", api.InviteAccept.as_view(), name="api-invite-accept"),
]
