"""The wire API for teams and invites (sections 3 and 4 of the protocol).

Every team endpoint first resolves the team for the caller (404 for non-members), then calls one
service or selector.
"""

from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import SCOPE_REFUSED, WRITE, authenticate_bearer, bearer_from_header
from core.api import rfc3339
from core.errors import BadRequest, Forbidden
from teams import selectors, services


def _body(request) -> dict:
    """The JSON object sent (the client sends `{}` where it has nothing to say)."""
    data = request.data
    if data in (None, ""):
        return {}
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    return data


def _team(request, name):
    return selectors.team_get_for_member(viewer=request.user, name=name)


def _team_json(team) -> dict:
    return {
        "id": team.id, "name": team.name, "owner_id": team.owner_id, "created_at": rfc3339(team.created_at),
    }


def _member_json(membership) -> dict:
    user = membership.user
    item = {"user_id": user.id, "display": user.display_name, "role": membership.role}
    if user.email:
        item["email"] = user.email
    item["joined_at"] = rfc3339(membership.joined_at)
    return item


def _invite_json(invite) -> dict:
    creator = invite.created_by
    return {
        "id": invite.id,
        "created_by": {"id": creator.id, "display": creator.display_name} if creator else None,
        "created_at": rfc3339(invite.created_at),
        "expires_at": rfc3339(invite.expires_at),
    }


class TeamCollection(APIView):
    def post(self, request):
        team = services.team_create(actor=request.user, name=_body(request).get("name"))
        return Response({"team": {"id": team.id, "name": team.name, "owner_id": team.owner_id}}, status=201)

    def get(self, request):
        teams = selectors.teams_for_user(viewer=request.user)
        return Response({"teams": [_team_json(team) for team in teams]})


class TeamItem(APIView):
    def delete(self, request, name):
        services.team_delete(actor=request.user, team=_team(request, name))
        return Response(status=204)


class TeamMembers(APIView):
    def get(self, request, name):
        members = selectors.team_members(viewer=request.user, team=_team(request, name))
        return Response({"members": [_member_json(m) for m in members]})


class TeamMember(APIView):
    def delete(self, request, name, user_id):
        services.membership_remove(actor=request.user, team=_team(request, name), user_id=user_id)
        return Response(status=204)


class TeamLeave(APIView):
    def post(self, request, name):
        services.team_leave(actor=request.user, team=_team(request, name))
        return Response(status=204)


class TeamInvites(APIView):
    def post(self, request, name):
        invite, code = services.invite_create(actor=request.user, team=_team(request, name))
        answer = {
            "code": code,
            "url": selectors.invite_url(request, code),
            "expires_at": rfc3339(invite.expires_at),
        }
        return Response(answer, status=201)

    def get(self, request, name):
        """Hub extension: the pending invites (no codes: only their hashes are stored)."""
        invites = selectors.team_pending_invites(viewer=request.user, team=_team(request, name))
        return Response({"invites": [_invite_json(invite) for invite in invites]})


class TeamInvite(APIView):
    def delete(self, request, name, invite_id):
        """Hub extension: the owner revokes an unused invite."""
        services.invite_revoke(actor=request.user, team=_team(request, name), invite_id=invite_id)
        return Response(status=204)


class InviteAccept(APIView):
    """POST /v1/invites/{code}/accept with an optional bearer.

    DRF's bearer authentication answers 401 to a bad token; here a stale, unknown or revoked
    token must count as no token at all (the client sends whatever it has stored), so the
    bearer is checked by hand.
    """

    authentication_classes = []
    permission_classes = [AllowAny]

    def post(self, request, code):
        body = _body(request)
        user = self._caller(request)
        user, team, token = services.invite_accept(code=code, actor=user, display=body.get("display"))
        answer = {
            "user": {"id": user.id, "display": user.display_name},
            "team": {"id": team.id, "name": team.name},
        }
        if token is not None:
            answer["token"] = token
        return Response(answer, status=201)

    @staticmethod
    def _caller(request):
        plaintext = bearer_from_header(request)
        found = authenticate_bearer(plaintext) if plaintext else None
        if found is None:
            return None
        user, credential = found
        if WRITE not in credential.scopes:
            raise Forbidden(SCOPE_REFUSED[WRITE])
        return user
