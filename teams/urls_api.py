"""Team and invite routes of the wire API, mounted under /v1/."""

from django.urls import path

from teams import api, invite_views

urlpatterns = [
    path("teams", api.TeamCollection.as_view(), name="api-teams"),
    path("teams/<str:name>", api.TeamItem.as_view(), name="api-team"),
    path("teams/<str:name>/members", api.TeamMembers.as_view(), name="api-team-members"),
    path("teams/<str:name>/members/<str:user_id>", api.TeamMember.as_view(), name="api-team-member"),
    path("teams/<str:name>/leave", api.TeamLeave.as_view(), name="api-team-leave"),
    path("teams/<str:name>/invites", api.TeamInvites.as_view(), name="api-team-invites"),
    path("teams/<str:name>/invites/<str:invite_id>", api.TeamInvite.as_view(), name="api-team-invite"),
    path("invites/<str:code>/accept", api.InviteAccept.as_view(), name="api-invite-accept"),
    # The same URL `ltm join` splits is the page a browser opens (HTML, session sign-in).
    path("invites/<str:code>", invite_views.invite_page, name="invite-page"),
]
