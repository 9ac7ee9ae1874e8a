"""The wire API for teams and invites (sections 3 and 4 of the protocol).

Every team endpoint first resolves the team for the caller (404 for non-members), then calls one
service or selector.
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import SCOPE_REFUSED, WRITE
from core.api import NO_CONTENT, error_responses, no_store
from core.errors import BadRequest, Forbidden, Unauthorized
from oauth.api import OPTIONAL_BEARER
from oauth.authentication import BearerRefused, authenticate_bearer
from teams import selectors, services
from teams.models import TeamEvent
from teams.serializers import (
    InviteAcceptedSerializer,
    InviteAcceptRequestSerializer,
    InviteCreatedSerializer,
    InviteCreateRequestSerializer,
    InviteListSerializer,
    InviteSerializer,
    MemberListSerializer,
    MemberSerializer,
    RoleRequestSerializer,
    TeamCreatedSerializer,
    TeamCreateRequestSerializer,
    TeamEventListSerializer,
    TeamListSerializer,
    TransferOfferedSerializer,
    TransferRequestSerializer,
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


def _link(request):
    """How an invite's code becomes the link a mail carries."""
    return lambda code: selectors.invite_url(request, code)


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
        summary="Delete a team (owner only) and its packets",
        responses={204: NO_CONTENT, **error_responses(404)},
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
        summary="Remove a member",
        description="The owner removes anyone but themselves; an admin removes plain members (403 otherwise).",
        responses={204: NO_CONTENT, **error_responses(400, 403, 404)},
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
        summary="Mint an invite (any member; by e-mail: owner and admins)",
        description=(
            "`{}` mints a bare link, as the client does. Hub extensions: `label` notes who a link is for; "
            "`email` (the owner and admins only, 403 for members) also mails the link to that address."
        ),
        request={"application/json": InviteCreateRequestSerializer},
        responses={201: InviteCreatedSerializer, **error_responses(400, 403, 404)},
    ),
    get=extend_schema(
        summary="List pending invites (hub extension)",
        description="Unused, unrevoked, unexpired invites, newest first; without their codes (only hashes are stored).",
        responses={200: InviteListSerializer, **error_responses(404)},
    ),
)
@no_store  # the answer holds the invite code
class TeamInvites(APIView):
    def post(self, request, name):
        body = _body(request)
        invite, code = services.invite_create(
            actor=request.user,
            team=_team(request, name),
            email=body.get("email"),
            label=body.get("label"),
            link=_link(request),
        )
        answer = {
            "code": code,
            "url": selectors.invite_url(request, code),
            "expires_at": invite.expires_at,
            "invite": invite,
        }
        return Response(InviteCreatedSerializer(answer).data, status=201)

    def get(self, request, name):
        """Hub extension: the pending invites (no codes: only their hashes are stored)."""
        invites = selectors.team_pending_invites(viewer=request.user, team=_team(request, name))
        return Response(InviteListSerializer({"invites": invites}).data)


@extend_schema_view(
    delete=extend_schema(
        summary="Revoke an unused invite (owner and admins; hub extension)",
        responses={204: NO_CONTENT, **error_responses(403, 404, 409)},
    ),
)
class TeamInvite(APIView):
    def delete(self, request, name, invite_id):
        """Hub extension: the owner or an admin revokes an unused invite."""
        services.invite_revoke(actor=request.user, team=_team(request, name), invite_id=invite_id)
        return Response(status=204)


@extend_schema_view(
    post=extend_schema(
        summary="Mail a pending invite again (owner and admins; hub extension)",
        description=(
            "Only the code's hash is stored, so the new mail carries a fresh link and the previous mail's "
            "link stops working. The invite keeps its expiry and stays single-use. 400 for an invite "
            "without an address, 409 once used, 410 once revoked or expired."
        ),
        request=EMPTY_BODY,
        responses={200: InviteSerializer, **error_responses(400, 403, 404, 409, 410)},
    ),
)
class TeamInviteResend(APIView):
    def post(self, request, name, invite_id):
        invite = services.invite_resend(
            actor=request.user, team=_team(request, name), invite_id=invite_id, link=_link(request)
        )
        return Response(InviteSerializer(invite).data)


@extend_schema_view(
    post=extend_schema(
        summary="Make a member an admin, or an admin a member (owner only; hub extension)",
        request={"application/json": RoleRequestSerializer},
        responses={200: MemberSerializer, **error_responses(400, 403, 404)},
    ),
)
class TeamMemberRole(APIView):
    def post(self, request, name, user_id):
        membership = services.membership_set_role(
            actor=request.user,
            team=_team(request, name),
            user_id=user_id,
            role=_body(request).get("role"),
        )
        return Response(MemberSerializer(membership).data)


@extend_schema_view(
    post=extend_schema(
        summary="Offer the team's ownership to a member (owner only; hub extension)",
        description="Nothing changes until that member accepts (POST .../transfer/accept). A new offer replaces the pending one.",
        request={"application/json": TransferRequestSerializer},
        responses={200: TransferOfferedSerializer, **error_responses(400, 403, 404)},
    ),
    delete=extend_schema(
        summary="Withdraw (the owner) or decline (the member offered) a pending transfer (hub extension)",
        responses={204: NO_CONTENT, **error_responses(403, 404)},
    ),
)
class TeamTransfer(APIView):
    def post(self, request, name):
        team = services.team_transfer_offer(
            actor=request.user,
            team=_team(request, name),
            new_owner_id=_body(request).get("user_id"),
        )
        return Response(TransferOfferedSerializer(team).data)

    def delete(self, request, name):
        services.team_transfer_cancel(actor=request.user, team=_team(request, name))
        return Response(status=204)


@extend_schema_view(
    post=extend_schema(
        summary="Accept the team's ownership offered to the caller (hub extension)",
        description="The caller becomes the owner; the previous owner stays on as an admin.",
        request=EMPTY_BODY,
        responses={200: TeamCreatedSerializer, **error_responses(403, 404)},
    ),
)
class TeamTransferAccept(APIView):
    def post(self, request, name):
        team = services.team_transfer_accept(actor=request.user, team=_team(request, name))
        return Response(TeamCreatedSerializer({"team": team}).data)


def _before_param(request) -> int | None:
    raw = request.query_params.get("before")
    if raw in (None, ""):
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 18):
        raise BadRequest("before must be an event id (a positive whole number)")
    return int(raw)


def _events_limit_param(request) -> int:
    raw = request.query_params.get("limit")
    if raw in (None, ""):
        return selectors.EVENTS_DEFAULT_LIMIT
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 3 and 1 <= int(raw) <= selectors.EVENTS_MAX_LIMIT):
        raise BadRequest(f"limit must be a whole number from 1 to {selectors.EVENTS_MAX_LIMIT}")
    return int(raw)


def _kind_param(request) -> str:
    kind = request.query_params.get("kind") or ""
    if kind and kind not in dict(TeamEvent.KINDS):
        raise BadRequest(f"unknown kind {kind[:40]!r}; one of: {', '.join(dict(TeamEvent.KINDS))}")
    return kind


@extend_schema_view(
    get=extend_schema(
        summary="A team's activity log, newest first (members; hub extension)",
        description=(
            "Keyset pagination: the answer's `next_before` (null on the last page) passed as `before` gives "
            "the next, older page. Events outlive the packets and people they mention."
        ),
        parameters=[
            OpenApiParameter(
                "limit", int, description=f"1 to {selectors.EVENTS_MAX_LIMIT}, default {selectors.EVENTS_DEFAULT_LIMIT}"
            ),
            OpenApiParameter("before", int, description="only events older than this event id"),
            OpenApiParameter("kind", str, enum=[kind for kind, _ in TeamEvent.KINDS], description="only this kind"),
        ],
        responses={200: TeamEventListSerializer, **error_responses(400, 404)},
    ),
)
class TeamEvents(APIView):
    def get(self, request, name):
        limit = _events_limit_param(request)
        # One more than asked tells whether an older page exists.
        events = selectors.team_events(
            viewer=request.user,
            team=_team(request, name),
            kind=_kind_param(request),
            before=_before_param(request),
            limit=limit + 1,
        )
        next_before = events[limit - 1].id if len(events) > limit else None
        answer = {"events": events[:limit], "next_before": next_before}
        return Response(TeamEventListSerializer(answer).data)


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
        responses={201: InviteAcceptedSerializer, **error_responses(400, 401, 403, 409, 410)},
    ),
)
@no_store  # the answer may hold a new token
class InviteAccept(APIView):
    """POST /v1/invites/{code}/accept with an optional bearer.

    DRF's bearer authentication answers 401 to a bad token; here a stale, unknown or revoked
    token must count as no token at all (the client sends whatever it has stored). A valid token
    issued for another resource (/mcp) is refused, as everywhere on /v1: it must not join its
    user to a team, nor be taken for no token and make a new account.
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
        try:
            found = authenticate_bearer(request, resource="/v1")
        except BearerRefused as refused:
            if refused.description is None:
                return None
            raise Unauthorized(refused.description) from None
        if found is None:
            return None
        user, credential = found
        if WRITE not in credential.scopes:
            raise Forbidden(SCOPE_REFUSED[WRITE])
        return user
