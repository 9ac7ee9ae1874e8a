"""The wire API for teams and invites (sections 3 and 4 of the protocol).

Every team endpoint first resolves the team for the caller (404 for non-members), then calls one
service or selector.
"""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import SCOPE_REFUSED, WRITE
from core.api import NO_CONTENT, error_responses, no_content_method, no_store
from core.errors import Forbidden, Unauthorized
from core.params import body, query
from oauth.api import OPTIONAL_BEARER
from oauth.authentication import BearerRefused, authenticate_bearer
from teams import selectors, services
from teams.second_factor import members_without_second_factor
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
    TeamEventsQuerySerializer,
    TeamListSerializer,
    TeamSettingsRequestSerializer,
    TeamSettingsSerializer,
    TransferOfferedSerializer,
    TransferRequestSerializer,
)

# What the client sends where it has nothing to say.
EMPTY_BODY = {"application/json": {"type": "object", "maxProperties": 0}}


def _team(request, name):
    return selectors.team_get_for_member(viewer=request.user, name=name)


def _in_team(request, name, **named) -> dict:
    """A team endpoint's URL arguments as its service takes them: the team (404 unless the caller
    is a member), then the member or invite the URL names."""
    return {"team": _team(request, name), **named}


def _listed(selector, serializer, key: str):
    """A GET method answering `{key: [...]}`: what `selector` gives of the team for the caller."""

    def get(self, request, name):
        return Response(serializer({key: selector(viewer=request.user, team=_team(request, name))}).data)

    return get


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
        team = services.team_create(actor=request.user, **body(TeamCreateRequestSerializer, request))
        return Response(TeamCreatedSerializer({"team": team}).data, status=201)

    def get(self, request):
        teams = selectors.teams_for_user(viewer=request.user)
        return Response(TeamListSerializer({"teams": teams}).data)


@extend_schema_view(
    delete=extend_schema(
        summary="Delete a team (owner only) and its packets",
        responses={204: NO_CONTENT, **error_responses(404)},
    ),
    patch=extend_schema(
        summary="Change a team's settings (owner and admins; hub extension)",
        description=(
            "`share_outside`: whether members may share the team's packets with people outside it by "
            "username (off by default); turning it off ends those shares. `secret_scan`: `flag` or `refuse` "
            "makes the hub's secret scan stricter for the team's packets (never looser than the hub: 400). "
            "`require_mfa`: members need a second factor before the team's packets open to them (a token "
            "reads them only if issued after a sign-in with one); while it is on, the answer lists the "
            "members without one. 403 for plain members."
        ),
        request={"application/json": TeamSettingsRequestSerializer},
        responses={200: TeamSettingsSerializer, **error_responses(400, 403, 404)},
    ),
)
class TeamItem(APIView):
    delete = no_content_method(services.team_delete, _in_team)

    def patch(self, request, name):
        asked = body(TeamSettingsRequestSerializer, request)
        team = services.team_settings_update(actor=request.user, team=_team(request, name), **asked)
        missing = members_without_second_factor(team=team) if team.require_mfa else []
        return Response(TeamSettingsSerializer({"team": team, "without_second_factor": missing}).data)


@extend_schema_view(
    get=extend_schema(summary="List a team's members", responses={200: MemberListSerializer, **error_responses(404)}),
)
class TeamMembers(APIView):
    get = _listed(selectors.team_members, MemberListSerializer, "members")


@extend_schema_view(
    delete=extend_schema(
        summary="Remove a member",
        description="The owner removes anyone but themselves; an admin removes plain members (403 otherwise).",
        responses={204: NO_CONTENT, **error_responses(400, 403, 404)},
    ),
)
class TeamMember(APIView):
    delete = no_content_method(services.membership_remove, _in_team)


@extend_schema_view(
    post=extend_schema(
        summary="Leave a team (not its owner)",
        request=EMPTY_BODY,
        responses={204: NO_CONTENT, **error_responses(400, 404)},
    ),
)
class TeamLeave(APIView):
    post = no_content_method(services.team_leave, _in_team)


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
        invite, code = services.invite_create(
            actor=request.user,
            team=_team(request, name),
            link=_link(request),
            **body(InviteCreateRequestSerializer, request),
        )
        answer = {
            "code": code,
            "url": selectors.invite_url(request, code),
            "expires_at": invite.expires_at,
            "invite": invite,
        }
        return Response(InviteCreatedSerializer(answer).data, status=201)

    get = _listed(selectors.team_pending_invites, InviteListSerializer, "invites")


@extend_schema_view(
    delete=extend_schema(
        summary="Revoke an unused invite (owner and admins; hub extension)",
        description="Hub extension: the owner or an admin revokes an unused invite.",
        responses={204: NO_CONTENT, **error_responses(403, 404, 409)},
    ),
)
class TeamInvite(APIView):
    delete = no_content_method(services.invite_revoke, _in_team)


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
            actor=request.user, team=_team(request, name), user_id=user_id, **body(RoleRequestSerializer, request)
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
        team = _team(request, name)  # a non-member's 404 comes before anything about the body
        new_owner_id = body(TransferRequestSerializer, request)["user_id"]
        offered = services.team_transfer_offer(actor=request.user, team=team, new_owner_id=new_owner_id)
        return Response(TransferOfferedSerializer(offered).data)

    delete = no_content_method(services.team_transfer_cancel, _in_team)


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


@extend_schema_view(
    get=extend_schema(
        summary="A team's activity log, newest first (members; hub extension)",
        description=(
            "Keyset pagination: the answer's `next_before` (null on the last page) passed as `before` gives "
            "the next, older page. Events outlive the packets and people they mention."
        ),
        parameters=[TeamEventsQuerySerializer],
        responses={200: TeamEventListSerializer, **error_responses(400, 404)},
    ),
)
class TeamEvents(APIView):
    def get(self, request, name):
        asked = query(TeamEventsQuerySerializer, request)
        limit = asked.pop("limit")
        # One more than asked tells whether an older page exists.
        events = selectors.team_events(viewer=request.user, team=_team(request, name), limit=limit + 1, **asked)
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
        display = body(InviteAcceptRequestSerializer, request).get("display")
        user = self._caller(request)
        user, team, token = services.invite_accept(code=code, actor=user, display=display)
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
