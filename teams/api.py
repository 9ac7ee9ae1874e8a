"""The wire API for teams and invites (sections 3 and 4 of the protocol).

Every team endpoint first resolves the team for the caller (404 for non-members), then calls one
service or selector.
"""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import OPTIONAL_BEARER
from accounts.authentication import SCOPE_REFUSED, WRITE, authenticate_bearer, bearer_from_header
from core.api import NO_CONTENT, error_responses
from core.errors import BadRequest, Forbidden
from teams import selectors, services
from teams.serializers import (
    InviteAcceptedSerializer,
    InviteAcceptRequestSerializer,
    InviteCreatedSerializer,
    InviteListSerializer,
    MemberListSerializer,
    TeamCreatedSerializer,
    TeamCreateRequestSerializer,
    TeamListSerializer,
)

# What the client sends where it has nothing to say.
EMPTY_BODY = {"application/json": {"type": "object", "maxProperties": 0}}


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


@extend_schema_view(
    post=extend_schema(
        summary="Create a team",
        request={"application/json": TeamCreateRequestSerializer},
        responses={201: TeamCreatedSerializer, **error_responses(400, 409)},
    ),
    get=extend_schema(summary="List the caller's teams", responses={200: TeamListSerializer}),
)
class TeamCollection(APIView):
    def post(self, request):
        team = services.team_create(actor=request.user, name=_body(request).get("name"))
        return Response(TeamCreatedSerializer({"team": team}).data, status=201)

    def get(self, request):
        teams = selectors.teams_for_user(viewer=request.user)
        return Response(TeamListSerializer({"teams": teams}).data)


@extend_schema_view(
    delete=extend_schema(
        summary="Delete a team (owner only) and its packets", responses={204: NO_CONTENT, **error_responses(404)},
    ),
)
class TeamItem(APIView):
    def delete(self, request, name):
        services.team_delete(actor=request.user, team=_team(request, name))
        return Response(status=204)


@extend_schema_view(
    get=extend_schema(summary="List a team's members", responses={200: MemberListSerializer, **error_responses(404)}),
)
class TeamMembers(APIView):
    def get(self, request, name):
        members = selectors.team_members(viewer=request.user, team=_team(request, name))
        return Response(MemberListSerializer({"members": members}).data)


@extend_schema_view(
    delete=extend_schema(
        summary="Remove a member (owner only)", responses={204: NO_CONTENT, **error_responses(400, 404)},
    ),
)
class TeamMember(APIView):
    def delete(self, request, name, user_id):
        services.membership_remove(actor=request.user, team=_team(request, name), user_id=user_id)
        return Response(status=204)


@extend_schema_view(
    post=extend_schema(
        summary="Leave a team (not its owner)",
        request=EMPTY_BODY,
        responses={204: NO_CONTENT, **error_responses(400, 404)},
    ),
)
class TeamLeave(APIView):
    def post(self, request, name):
        services.team_leave(actor=request.user, team=_team(request, name))
        return Response(status=204)


@extend_schema_view(
    post=extend_schema(
        summary="Mint an invite (any member)",
        request=EMPTY_BODY,
        responses={201: InviteCreatedSerializer, **error_responses(404)},
    ),
    get=extend_schema(
        summary="List pending invites (hub extension)",
        description="Unused, unrevoked, unexpired invites, newest first; without their codes (only hashes are stored).",
        responses={200: InviteListSerializer, **error_responses(404)},
    ),
)
class TeamInvites(APIView):
    def post(self, request, name):
        invite, code = services.invite_create(actor=request.user, team=_team(request, name))
        answer = {"code": code, "url": selectors.invite_url(request, code), "expires_at": invite.expires_at}
        return Response(InviteCreatedSerializer(answer).data, status=201)

    def get(self, request, name):
        """Hub extension: the pending invites (no codes: only their hashes are stored)."""
        invites = selectors.team_pending_invites(viewer=request.user, team=_team(request, name))
        return Response(InviteListSerializer({"invites": invites}).data)


@extend_schema_view(
    delete=extend_schema(
        summary="Revoke an unused invite (owner only; hub extension)",
        responses={204: NO_CONTENT, **error_responses(404, 409)},
    ),
)
class TeamInvite(APIView):
    def delete(self, request, name, invite_id):
        """Hub extension: the owner revokes an unused invite."""
        services.invite_revoke(actor=request.user, team=_team(request, name), invite_id=invite_id)
        return Response(status=204)


@extend_schema_view(
    post=extend_schema(
        summary="Accept an invite",
        description=(
            "With a valid bearer the caller joins the team. Without one (or with an unknown, revoked or "
            "expired one) the hub creates a new user, a personal token and the membership, and returns the "
            "token."
        ),
        auth=OPTIONAL_BEARER,
        request={"application/json": InviteAcceptRequestSerializer},
        responses={201: InviteAcceptedSerializer, **error_responses(400, 403, 409, 410)},
    ),
)
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
        answer = InviteAcceptedSerializer({"user": user, "team": team, "token": token})
        return Response(answer.data, status=201)

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
